// SPDX-License-Identifier: MIT
// Writes the committed meshopt vectors of tests/meshopt/vectors/ with the npm meshoptimizer package
// (the version pinned in package.json): its encoder makes the streams, its JavaScript reference
// decoder (meshopt_decoder_reference.js) says what they decode to, and its production decoder
// (WebAssembly) must agree: the same bytes, a COLOR component at most one unit apart (it rounds
// ties to even). test_meshopt holds arbor's own codec (src/gltf/meshopt_codec.c: attribute
// streams of version 1, the COLOR filter) against them bit for bit, without npm or the
// registry. Run by hand when the vectors should change, and commit what it writes:
//
//   d=$(mktemp -d) && cp tests/meshopt/package.json tests/meshopt/package-lock.json "$d" &&
//   (cd "$d" && npm ci) && cp tests/meshopt/committed.mjs tests/meshopt/inputs.mjs "$d" &&
//   node "$d/committed.mjs" tests/meshopt/vectors && rm -rf "$d"
//
// OUT/index.txt: one vector a line, "name count stride filter" (filter NONE or COLOR);
// OUT/NAME.in: the encoded stream; OUT/NAME.out: what the reference decoder made of it (filter
// applied). OUT/NAME.mut for the streams named in `mutated`: every byte of the stream changed
// (xor with each of `flips`), a line each, "byte xor refused" (either decoder refuses it: the
// production one checks the bounds, the reference one the modes the specification forbids) or
// "byte xor fnv1a64" (the FNV-1a 64-bit hash of the reference decoder's output, as 16 hex digits,
// without the filter: a filter of bytes no encoder wrote is unspecified, Appendix B),
// or "byte xor invalid": decoded by both, but a channel mode byte the specification calls invalid
// (Appendix A: mode 3 or above, or mode 0 or 1 with high bits set), which they do not check.
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { generator, patterns as makePatterns, colors as makeColors } from './inputs.mjs';

// not among the package's exports: beside its decoder module
const { MeshoptDecoder: Reference } = await import(new URL('meshopt_decoder_reference.js', import.meta.resolve('meshoptimizer/decoder')));
await MeshoptEncoder.ready;
await MeshoptDecoder.ready;
const out = process.argv[2];
if (!out) {
    console.error('usage: node committed.mjs OUT');
    process.exit(2);
}
mkdirSync(out, { recursive: true });

const random = generator(0x9e3779b9);

// The reference decoder's bytes; throws when either decoder refuses the stream, or when the two
// disagree beyond what the filter's rounding allows.
function decode(count, stride, stream, filter) {
    const f = filter === 'NONE' ? undefined : filter;
    const want = new Uint8Array(count * stride), prod = new Uint8Array(count * stride);
    MeshoptDecoder.decodeVertexBuffer(prod, count, stride, stream, f);
    Reference.decodeVertexBuffer(want, count, stride, stream.slice(), f);
    const wide = stride === 8 && f;
    for (let i = 0; i < want.length; i += wide ? 2 : 1) {
        const a = wide ? want[i] | want[i + 1] << 8 : want[i], b = wide ? prod[i] | prod[i + 1] << 8 : prod[i];
        if (f ? Math.abs(a - b) > 1 : a !== b) throw new Error(`the two decoders differ at byte ${i}: ${a}, ${b}`);
    }
    return want;
}

function fnv1a64(bytes) {
    let h = 0xcbf29ce484222325n;
    for (const b of bytes) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
    return h.toString(16).padStart(16, '0');
}

// Version 1 streams of each pattern (inputs.mjs) at each level, in four shapes.
const patterns = makePatterns(random);
const index = [];
function vector(name, count, stride, raw, level, filter) {
    const stream = MeshoptEncoder.encodeVertexBufferLevel(raw, count, stride, level, 1);
    if (stream[0] !== 0xa1) throw new Error(`${name}: not a version 1 stream`);
    writeFileSync(path.join(out, `${name}.in`), stream);
    writeFileSync(path.join(out, `${name}.out`), decode(count, stride, stream, filter));
    index.push(`${name} ${count} ${stride} ${filter}`);
    return stream;
}
const streams = {};
for (const [pname, make] of Object.entries(patterns))
    for (const [count, stride] of [[1, 4], [17, 12], [130, 16], [300, 8]])
        for (const level of [0, 1, 2, 3]) {
            const name = `${pname}_s${stride}_n${count}_l${level}`;
            streams[name] = vector(name, count, stride, make(count, stride), level, 'NONE');
        }
const colors = (count) => makeColors(random, count);
for (const [stride, bits] of [[4, 2], [4, 6], [4, 8], [8, 9], [8, 12], [8, 16]])
    for (const count of [1, 16, 100]) {
        const name = `color_s${stride}_b${bits}_n${count}`;
        streams[name] = vector(name, count, stride, MeshoptEncoder.encodeFilterColor(colors(count), count, stride, bits), 2, 'COLOR');
    }
writeFileSync(path.join(out, 'index.txt'), index.join('\n') + '\n');

// Single-byte changes, decoded by the npm decoder (refused, or the hash of what it gives).
const mutated = ['shorts_s12_n17_l3', 'floats_s12_n17_l2', 'noise_s12_n17_l1', 'color_s8_b12_n16'];
const flips = [0x01, 0x10, 0x80, 0xff];
for (const name of mutated) {
    const [count, stride] = index.find((l) => l.startsWith(name + ' ')).split(' ').slice(1);
    const lines = [];
    for (let b = 0; b < streams[name].length; b++)
        for (const x of flips) {
            const copy = streams[name].slice();
            copy[b] ^= x;
            let result;
            try {
                result = fnv1a64(decode(+count, +stride, copy, 'NONE'));
            } catch {
                result = 'refused';
            }
            const modes = copy.subarray(copy.length - stride / 4);
            if (result !== 'refused' && modes.some((m) => (m & 15) > 2 || ((m & 15) < 2 && m >> 4))) result = 'invalid';
            lines.push(`${b} ${x} ${result}`);
        }
    writeFileSync(path.join(out, `${name}.mut`), lines.join('\n') + '\n');
}
console.log(`${out}: ${index.length} vectors, ${mutated.length} streams mutated`);
