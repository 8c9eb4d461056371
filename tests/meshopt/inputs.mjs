// SPDX-License-Identifier: MIT
// The inputs the meshopt vector scripts encode (make.mjs, at test time; committed.mjs, by hand):
// a deterministic generator, byte patterns that push the attribute encoder to each of its
// choices, and colors for the COLOR filter.

// xorshift32 from seed: every run writes the same files. Returns numbers in [0, 1).
export function generator(seed) {
    return () => {
        seed ^= seed << 13;
        seed >>>= 0;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        seed >>>= 0;
        return seed / 4294967296;
    };
}

// Smooth floats (2- and 4-byte channel deltas), small integers, constants (bytes that never
// change), noise (literal bytes), and half noise, half counters; each (count, stride) -> bytes.
export function patterns(random) {
    const p = {
        floats(count, stride) {
            const f = new Float32Array((count * stride) / 4);
            for (let i = 0; i < f.length; i++) f[i] = Math.sin(i * 0.37) * 100 + (i % (stride / 4)) * 3;
            return new Uint8Array(f.buffer);
        },
        shorts(count, stride) {
            const s = new Uint16Array((count * stride) / 2);
            for (let i = 0; i < s.length; i++) s[i] = (1000 + Math.floor(i / (stride / 2)) * 7 + (i % 3) * 300) & 0xffff;
            return new Uint8Array(s.buffer);
        },
        constant(count, stride) {
            const b = new Uint8Array(count * stride);
            for (let i = 0; i < b.length; i++) b[i] = (i % stride) * 11;
            return b;
        },
        noise(count, stride) {
            const b = new Uint8Array(count * stride);
            for (let i = 0; i < b.length; i++) b[i] = Math.floor(random() * 256);
            return b;
        },
        mixed(count, stride) {
            const b = p.noise(count, stride);
            for (let i = 0; i < b.length; i++) if (i % stride < stride / 2) b[i] = (i / stride) & 0xff;
            return b;
        },
    };
    return p;
}

// count RGBA colors in [0, 1] (alpha from 0.25), as floats for encodeFilterColor.
export function colors(random, count) {
    const f = new Float32Array(count * 4);
    for (let i = 0; i < f.length; i++) f[i] = i % 4 === 3 ? 0.25 + random() * 0.75 : random();
    return f;
}
