"""xoshiro256+ (Blackman and Vigna) on Python integers: the reference the kernels' generator
(:mod:`qtheory._rng`) is tested against, and the draws of the plain-Python reference loops."""

MASK = (1 << 64) - 1


class Xoshiro256Plus:
    """The generator from the state `words` (four 64-bit integers); :meth:`uniform` returns the
    top 53 bits of the next output as a double in [0, 1), :attr:`s` the state after it."""

    def __init__(self, words):
        self.s = [int(w) for w in words]

    def uniform(self) -> float:
        s = self.s
        result = (s[0] + s[3]) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = ((s[3] << 45) | (s[3] >> 19)) & MASK
        return (result >> 11) / 2.0**53
