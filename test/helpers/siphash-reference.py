# SipHash-2-4 with 64-bit output, written from the paper (Aumasson and
# Bernstein 2012) on Python integers: the independent reference for
# test/unit/experiments/siphash.test.ts. Reads {"key": hex, "messages": [hex]}
# on stdin, writes the tags as 16 hex digits each (the u64 value).
import json
import sys

MASK = (1 << 64) - 1


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & MASK


def siphash24(key, msg):
    k0 = int.from_bytes(key[:8], "little")
    k1 = int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def rnd():
        v[0] = (v[0] + v[1]) & MASK; v[1] = rotl(v[1], 13) ^ v[0]; v[0] = rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & MASK; v[3] = rotl(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & MASK; v[3] = rotl(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & MASK; v[1] = rotl(v[1], 17) ^ v[2]; v[2] = rotl(v[2], 32)

    b = len(msg)
    padded = msg + bytes((8 - (b + 1) % 8) % 8) + bytes([b & 0xFF])
    for i in range(0, len(padded), 8):
        m = int.from_bytes(padded[i:i + 8], "little")
        v[3] ^= m
        rnd(); rnd()
        v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(4):
        rnd()
    return v[0] ^ v[1] ^ v[2] ^ v[3]


req = json.load(sys.stdin)
key = bytes.fromhex(req["key"])
print(json.dumps(["%016x" % siphash24(key, bytes.fromhex(m)) for m in req["messages"]]))
