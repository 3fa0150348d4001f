"""What the differential checks (tools/toml-differential.py, tools/json-differential.py) share."""


def mutate(rng, data: bytes, interesting) -> bytes:
    """`data` with one to three bytes deleted, inserted or replaced, the new ones drawn from `interesting`."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        choice = rng.random()
        position = rng.randint(0, len(data)) if data else 0
        if choice < 0.35 and data:
            del data[min(position, len(data) - 1)]
        elif choice < 0.7:
            data.insert(position, rng.choice(interesting))
        elif data:
            data[min(position, len(data) - 1)] = rng.choice(interesting)
    return bytes(data)
