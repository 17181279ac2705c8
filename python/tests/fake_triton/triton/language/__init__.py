class constexpr:  # noqa: N801
    pass
