// What hone prints for a command line CLI11 could not parse: one line,
// "hone: message", naming an unknown subcommand as one.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace hone::cli {

// The message for `e`, raised while `app` parsed: "hone: unknown subcommand
// 'evall' (eval, bench, ...)" where a word was given where a subcommand was
// required, else CLI11's message, with the subcommand's --help to consult.
std::string ParseErrorMessage(const CLI::App& app, const CLI::ParseError& e);

}  // namespace hone::cli
