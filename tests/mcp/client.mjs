// Drives `hone mcp` with the official MCP TypeScript SDK, as an agent's
// client would: over stdio, over Streamable HTTP, and over HTTP with a
// bearer token. Run by tests/mcp/run-client-test (ctest McpClientTest),
// which installs the SDK beside this file.
//
//   node client.mjs HONE SOURCE_DIR WORK_DIR
//
// Exit 0 when every check passed; each check says what it asserts.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [hone, source, work] = process.argv.slice(2);
const softmax = `${source}/tasks/examples/softmax`;
const fast = `${softmax}/solutions/fast.cpp`;
const long = { timeout: 600000, resetTimeoutOnProgress: true };
let failures = 0;

function check(ok, what, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok || !detail ? '' : `: ${detail}`}`);
  if (!ok) failures++;
}

function textOf(result) {
  return (result.content || []).map((c) => c.text || '').join('\n');
}

// The live processes that descend from `root` (its children, theirs, ...),
// read from /proc as `ps` would.
function descendants(root) {
  const parent = new Map();
  const state = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      state.set(Number(name), fields[0]);
      parent.set(Number(name), Number(fields[1]));
    } catch { /* gone meanwhile */ }
  }
  const found = [];
  for (const [pid] of parent) {
    for (let p = parent.get(pid), n = 0; p && n < 64; p = parent.get(p), n++)
      if (p === root) {
        if (state.get(pid) !== 'Z') found.push(pid);
        break;
      }
  }
  return found;
}

// Which of `pids` still run (a zombie has ended): a process that left the
// tree (setsid, its parent gone, reparented to init) is no descendant any
// more, so the pids seen before a cancellation are asked after it by pid.
function stillRunning(pids) {
  return pids.filter((pid) => {
    try {
      process.kill(pid, 0);
    } catch {
      return false;  // ESRCH: gone
    }
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return false;
    }
  });
}

// Waits up to `seconds` until `root` has no live descendant and none of
// `seen` (pids recorded earlier) runs; what is left then.
async function noneLeft(root, seconds, seen = []) {
  const left = () => [...new Set([...descendants(root), ...stillRunning(seen)])];
  for (let i = 0; i < seconds * 10; i++) {
    if (left().length === 0) return [];
    await new Promise((r) => setTimeout(r, 100));
  }
  return left();
}

// The checks every transport must pass: `serverPid` is the hone mcp process.
async function scenario(label, client, serverPid) {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  for (const name of ['eval', 'lint', 'task_show'])
    check(tools.includes(name), `${label}: tools/list names ${name}`, tools.join(', '));

  let progress = 0;
  const passed = await client.callTool(
    { name: 'eval', arguments: { problem: softmax, candidate: fast, backend: 'cpu', time_budget: 0.5 } },
    undefined, { ...long, onprogress: () => progress++ });
  check(passed.structuredContent?.status === 'passed',
        `${label}: eval of softmax/fast.cpp is passed in structuredContent`, textOf(passed));
  check(textOf(passed).startsWith('passed'), `${label}: the text leads with the status`, textOf(passed));
  check(typeof passed.structuredContent?.verdict === 'object',
        `${label}: the whole verdict is in structuredContent`);
  check(progress > 0, `${label}: eval sent progress notifications`, String(progress));

  const broken = await client.callTool(
    { name: 'eval', arguments: { problem: softmax, backend: 'cpu', language: 'cpp',
      source: '#include "hone/kernel.h"\nint hone_forward(const hone_args* a) { return undeclared_thing; }\n' } },
    undefined, long);
  check(broken.structuredContent?.status === 'compile_error',
        `${label}: source text that does not compile is compile_error`, textOf(broken));
  check(/error: .*undeclared_thing/.test(textOf(broken)),
        `${label}: the text has the compiler's line`, textOf(broken));

  const missing = await client.callTool(
    { name: 'eval', arguments: { problem: `${work}/no-such-problem`, candidate: fast } });
  check(missing.isError === true && textOf(missing).includes('no-such-problem'),
        `${label}: a problem that does not exist is a tool error naming it`, textOf(missing));

  // Work longer than the call waits goes on as a job; result returns its verdict.
  const early = await client.callTool(
    { name: 'eval', arguments: { problem: softmax, candidate: fast, backend: 'cpu', no_time: true,
                                 wait_seconds: 0 } });
  check(early.structuredContent?.status === 'running' && early.structuredContent?.job,
        `${label}: an eval that outlasts wait_seconds answers running with a job`, textOf(early));
  const later = await client.callTool(
    { name: 'result', arguments: { job: early.structuredContent?.job || '', wait_seconds: 300 } },
    undefined, long);
  check(later.structuredContent?.status === 'passed',
        `${label}: result gives the job's verdict`, textOf(later));

  await client.ping();
  const again = await client.listTools();
  check(again.tools.length === tools.length, `${label}: the server still answers afterwards`);

  const abort = new AbortController();
  let started;
  const running = new Promise((r) => { started = r; });
  const cancelled = client.callTool(
    { name: 'eval', arguments: { problem: softmax, candidate: fast, backend: 'cpu', time_budget: 30 } },
    undefined, { ...long, signal: abort.signal, onprogress: () => started() });
  await Promise.race([running, new Promise((r) => setTimeout(r, 5000))]);
  const seen = descendants(serverPid);
  check(seen.length > 0, `${label}: the eval runs as the server's child`);
  abort.abort('the test cancels it');
  let rejected = false;
  try { await cancelled; } catch { rejected = true; }
  check(rejected, `${label}: the cancelled call ends at the client`);
  const left = await noneLeft(serverPid, 15, seen);
  check(left.length === 0, `${label}: a cancelled eval leaves no process behind`,
        `still running: ${left.join(', ')}`);
  await client.ping();
  check(true, `${label}: the server answers after the cancellation`);
}

async function overStdio() {
  const transport = new StdioClientTransport({
    command: hone,
    args: ['mcp', '--root', source, '--root', work, '--store', `${work}/stdio.db`, '--quiet'],
    env: { ...process.env },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'hone-test', version: '1' });
  await client.connect(transport);
  await scenario('stdio', client, transport.pid);
  await client.close();
}

// Without --root, the folders a stdio client offers as MCP roots are the
// ones it may name: here the source tree, while the server runs in the work
// folder (its default root had it taken none).
async function clientRoots() {
  const transport = new StdioClientTransport({
    command: hone, args: ['mcp', '--store', `${work}/roots.db`, '--quiet'], cwd: work,
    env: { ...process.env }, stderr: 'inherit',
  });
  const client = new Client({ name: 'hone-test', version: '1' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: `file://${source}`, name: 'hone' }],
  }));
  await client.connect(transport);
  let inside;
  for (let i = 0; i < 50; i++) {  // the server asks for the roots once initialized
    inside = await client.callTool({ name: 'task_show', arguments: { problem: softmax } });
    if (!inside.isError) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  check(!inside.isError, 'roots: a file under the client\'s root may be named', textOf(inside));
  const outside = await client.callTool({ name: 'task_show', arguments: { problem: work } });
  check(outside.isError && textOf(outside).includes('outside the folders'),
        'roots: one outside them is a tool error', textOf(outside));
  await client.close();
}

// Starts `hone mcp --http 127.0.0.1:0` and reads the address it prints.
async function startHttp(store, env) {
  const child = spawn(hone, ['mcp', '--http', '127.0.0.1:0', '--root', source, '--root', work,
                             '--store', store, '--quiet'],
                      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`hone mcp --http ended with ${code}`)));
  });
  return { child, url: new URL(url) };
}

async function overHttp(token) {
  const label = token ? 'http+token' : 'http';
  const { child, url } = await startHttp(`${work}/${token ? 'token' : 'http'}.db`,
                                         token ? { HONE_MCP_TOKEN: token } : {});
  try {
    if (token) {
      let refused = false;
      try {
        await new Client({ name: 'no-token', version: '1' })
          .connect(new StreamableHTTPClientTransport(url));
      } catch (e) {
        refused = /401|nauthori|bearer/i.test(String(e));
      }
      check(refused, `${label}: a client without the token is refused (401)`);
    }
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const client = new Client({ name: 'hone-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    await scenario(label, client, child.pid);
    await client.close();
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

try {
  await overStdio();
  await clientRoots();
  await overHttp('');
  await overHttp('s3cret-token');
} catch (e) {
  check(false, 'the client ran to the end', e.stack || String(e));
}
console.log(failures ? `${failures} check(s) failed` : 'every check passed');
process.exit(failures ? 1 : 0);
