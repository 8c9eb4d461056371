// SPDX-License-Identifier: MIT
// Writes the meshopt test data of tests/test_meshopt.c into OUT with the npm meshoptimizer
// package (pinned in package.json): its encoder makes the streams, its decoder says what they
// decode to.
//
//   node tests/meshopt/make.mjs OUT
//
// OUT/vectors.json lists codec vectors {name, count, stride, filter, version}; OUT/NAME.in holds
// the compressed stream and OUT/NAME.out what the npm decoder made of it (filter applied).
// OUT/khr.gltf and OUT/ext.gltf (+ .bin) are glTF files whose every bufferView is compressed
// (KHR_meshopt_compression with version 1 streams and every filter, or EXT_meshopt_compression
// with version 0 streams), their uncompressed bytes in a fallback buffer without data;
// OUT/khr_plain.gltf and OUT/ext_plain.gltf are the same files with the npm decoder's bytes
// stored plainly.
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { generator, patterns as makePatterns, colors as makeColors } from './inputs.mjs';

await MeshoptEncoder.ready;
await MeshoptDecoder.ready;
const out = process.argv[2];
if (!out) {
    console.error('usage: node make.mjs OUT');
    process.exit(2);
}
mkdirSync(out, { recursive: true });

const random = generator(0x2545f491);

function decode(count, stride, stream, mode, filter) {
    const target = new Uint8Array(count * stride);
    MeshoptDecoder.decodeGltfBuffer(target, count, stride, stream, mode, filter);
    return target;
}

// ---- codec vectors --------------------------------------------------------------------------
const vectors = [];
function vector(name, count, stride, raw, version, level, filter = 'NONE') {
    const stream = MeshoptEncoder.encodeVertexBufferLevel(raw, count, stride, level, version);
    writeFileSync(path.join(out, `${name}.in`), stream);
    writeFileSync(path.join(out, `${name}.out`), decode(count, stride, stream, 'ATTRIBUTES', filter));
    vectors.push({ name, count, stride, filter, version });
}

const patterns = makePatterns(random);
for (const [pname, make] of Object.entries(patterns))
    for (const stride of [4, 8, 12, 16, 36, 64, 256])
        for (const count of [1, 15, 17, 256, 300, 1000])
            for (const version of [0, 1])
                for (const level of version ? [0, 1, 2, 3] : [2]) {
                    if (stride === 256 && count > 256) continue;
                    vector(`${pname}_s${stride}_n${count}_v${version}_l${level}`, count, stride, make(count, stride), version, level);
                }

// Filters: COLOR (KHR only, decoded by arbor's own code), and the three both extensions share.
function unitVectors(count) {
    const f = new Float32Array(count * 4);
    for (let i = 0; i < count; i++) {
        const x = random() * 2 - 1, y = random() * 2 - 1, z = random() * 2 - 1, l = Math.hypot(x, y, z) || 1;
        f.set([x / l, y / l, z / l, random() < 0.5 ? -1 : 1], i * 4);
    }
    return f;
}
const colors = (count) => makeColors(random, count);
for (const version of [0, 1])
    for (const count of [1, 16, 100, 700]) {
        for (const [stride, bits] of [[4, 2], [4, 5], [4, 8], [8, 8], [8, 12], [8, 16]]) {
            if (version) vector(`color_s${stride}_b${bits}_n${count}`, count, stride, MeshoptEncoder.encodeFilterColor(colors(count), count, stride, bits), 1, 2, 'COLOR');
            vector(`oct_s${stride}_b${bits}_n${count}_v${version}`, count, stride, MeshoptEncoder.encodeFilterOct(unitVectors(count), count, stride, Math.max(bits, 2)), version, 2, 'OCTAHEDRAL');
        }
        for (const bits of [4, 9, 16]) {
            const q = unitVectors(count); // any unit 4-vectors will do as quaternions
            for (let i = 0; i < count; i++) {
                const l = Math.hypot(q[i * 4], q[i * 4 + 1], q[i * 4 + 2], q[i * 4 + 3]);
                for (let c = 0; c < 4; c++) q[i * 4 + c] /= l;
            }
            vector(`quat_b${bits}_n${count}_v${version}`, count, 8, MeshoptEncoder.encodeFilterQuat(q, count, 8, bits), version, 2, 'QUATERNION');
        }
        const f = new Float32Array(count * 3).map((_, i) => (random() - 0.5) * 10 ** ((i % 7) - 3));
        vector(`exp_n${count}_v${version}`, count, 12, MeshoptEncoder.encodeFilterExp(f, count, 12, 15, 'Separate'), version, 2, 'EXPONENTIAL');
    }
writeFileSync(path.join(out, 'vectors.json'), JSON.stringify(vectors));

// ---- glTF files -----------------------------------------------------------------------------
// nodes: 0 root -> 1 arm (animated: translation, rotation) -> 2 hand; 0 -> 3 body (skinned mesh,
// joints 1 and 2).
function gltf(ext, version) {
    const views = []; // {bytes, count, stride, mode, filter, target}
    const accessors = [];
    function add(bytes, count, stride, mode, filter, accessor, target) {
        views.push({ bytes, count, stride, mode, filter, target });
        accessors.push({ bufferView: views.length - 1, count: mode === 'ATTRIBUTES' ? count : count, ...accessor });
        return accessors.length - 1;
    }
    // mesh: a box of 8 quantized corners (unsigned short, padded to 8 bytes)
    const vertices = 8, pos = new Uint16Array(vertices * 4);
    for (let v = 0; v < vertices; v++) pos.set([v & 1 ? 1000 : 10, v & 2 ? 2000 : 20, v & 4 ? 3000 : 30, 0], v * 4);
    const POSITION = add(new Uint8Array(pos.buffer), vertices, 8, 'ATTRIBUTES', 'NONE',
        { componentType: 5123, type: 'VEC3', min: [10, 20, 30], max: [1000, 2000, 3000] }, 34962);
    const colorFilter = ext === 'KHR_meshopt_compression' ? 'COLOR' : 'NONE';
    const color = colorFilter === 'COLOR' ? MeshoptEncoder.encodeFilterColor(colors(vertices), vertices, 4, 8)
        : new Uint8Array(vertices * 4).map(() => Math.floor(random() * 256));
    const COLOR_0 = add(color, vertices, 4, 'ATTRIBUTES', colorFilter, { componentType: 5121, normalized: true, type: 'VEC4' }, 34962);
    const joints = new Uint8Array(vertices * 4).map((_, i) => (i % 4 === 0 ? (i >> 2) & 1 : 0));
    const JOINTS_0 = add(joints, vertices, 4, 'ATTRIBUTES', 'NONE', { componentType: 5121, type: 'VEC4' }, 34962);
    const weights = new Uint8Array(vertices * 4).map((_, i) => (i % 4 === 0 ? 255 : 0));
    const WEIGHTS_0 = add(weights, vertices, 4, 'ATTRIBUTES', 'NONE', { componentType: 5121, normalized: true, type: 'VEC4' }, 34962);
    const faces = [0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3];
    const indices = add(new Uint8Array(new Uint16Array(faces).buffer), faces.length, 2, 'TRIANGLES', 'NONE',
        { componentType: 5123, type: 'SCALAR' }, 34963);
    // skin: inverse bind matrices of the joints, exponential filter
    const ibm = new Float32Array(32);
    ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -0.25, -1.5, 0.125, 1]);
    ibm.set([0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0.3, -2.7, 0.01, 1], 16);
    const ibmBytes = MeshoptEncoder.encodeFilterExp(ibm, 2, 64, 18, 'Separate');
    const IBM = add(ibmBytes, 2, 64, 'ATTRIBUTES', 'EXPONENTIAL', { componentType: 5126, type: 'MAT4' });
    // animation: 5 keyframes of the arm's translation (exponential) and rotation (quaternion)
    const keys = 5, times = new Float32Array([0, 0.5, 1, 1.5, 2.25]);
    const input = add(new Uint8Array(times.buffer), keys, 4, 'ATTRIBUTES', 'NONE', { componentType: 5126, type: 'SCALAR', min: [0], max: [2.25] });
    const moves = new Float32Array(keys * 3).map((_, i) => Math.sin(i) * 2 + (i % 3));
    const translation = add(MeshoptEncoder.encodeFilterExp(moves, keys, 12, 14, 'SharedVector'), keys, 12, 'ATTRIBUTES', 'EXPONENTIAL',
        { componentType: 5126, type: 'VEC3' });
    const turns = new Float32Array(keys * 4);
    for (let k = 0; k < keys; k++) {
        const a = k * 0.7, axis = [0.6, 0, 0.8];
        turns.set([axis[0] * Math.sin(a / 2), 0, axis[2] * Math.sin(a / 2), Math.cos(a / 2)], k * 4);
    }
    const rotation = add(MeshoptEncoder.encodeFilterQuat(turns, keys, 8, 12), keys, 8, 'ATTRIBUTES', 'QUATERNION',
        { componentType: 5122, normalized: true, type: 'VEC4' });

    // compressed streams into buffer 0, the plain bytes (as npm decodes them) into the fallback
    // layout (and into the plain twin's buffer 0)
    const pad = (n) => (n + 3) & ~3;
    let packed = 0, plain = 0;
    const streams = views.map((v) => {
        const s = MeshoptEncoder.encodeGltfBuffer(v.bytes, v.count, v.stride, v.mode, version);
        const decoded = decode(v.count, v.stride, s, v.mode, v.filter);
        const at = { packed, plain, s, decoded };
        packed = pad(packed + s.length);
        plain = pad(plain + decoded.length);
        return at;
    });
    const bin = new Uint8Array(packed), twin = new Uint8Array(plain);
    streams.forEach((s) => {
        bin.set(s.s, s.packed);
        twin.set(s.decoded, s.plain);
    });
    const nodes = [
        { name: 'root', translation: [1, 2, 3], rotation: [0, 0.3826834323650898, 0, 0.9238795325112867], scale: [2, 2, 2], children: [1, 3] },
        { name: 'arm', translation: [0, 1, 0], children: [2] },
        { name: 'hand', translation: [0.5, 0, 0], scale: [0.5, 0.25, 1] },
        { name: 'body', mesh: 0, skin: 0 },
    ];
    const common = {
        asset: { version: '2.0', generator: 'arbor tests/meshopt/make.mjs (npm meshoptimizer)' },
        scene: 0,
        scenes: [{ nodes: [0] }],
        nodes,
        meshes: [{ primitives: [{ attributes: { POSITION, COLOR_0, JOINTS_0, WEIGHTS_0 }, indices }] }],
        skins: [{ joints: [1, 2], inverseBindMatrices: IBM }],
        animations: [{
            samplers: [{ input, output: translation }, { input, output: rotation }],
            channels: [{ sampler: 0, target: { node: 1, path: 'translation' } }, { sampler: 1, target: { node: 1, path: 'rotation' } }],
        }],
        accessors,
    };
    const name = ext === 'KHR_meshopt_compression' ? 'khr' : 'ext';
    // ext.gltf keeps its compressed bytes in buffer 1 and the fallback in buffer 0 (khr.gltf the
    // other way round): a .glb written from it must renumber both
    const [dataBuffer, fallbackBuffer] = ext === 'KHR_meshopt_compression' ? [0, 1] : [1, 0];
    const viewJson = (v, i, plainOnly) => {
        const o = { buffer: plainOnly ? 0 : fallbackBuffer, byteOffset: streams[i].plain, byteLength: v.count * v.stride };
        if (v.mode === 'ATTRIBUTES' && v.target) o.byteStride = v.stride;
        if (v.target) o.target = v.target;
        if (!plainOnly) {
            const e = { buffer: dataBuffer, byteOffset: streams[i].packed, byteLength: streams[i].s.length, byteStride: v.stride, mode: v.mode, count: v.count };
            if (v.filter !== 'NONE') e.filter = v.filter;
            o.extensions = { [ext]: e };
        }
        return o;
    };
    const compressed = {
        ...common,
        extensionsUsed: [ext, 'KHR_mesh_quantization'],
        extensionsRequired: [ext, 'KHR_mesh_quantization'],
        buffers: [null, null],
        bufferViews: views.map((v, i) => viewJson(v, i, false)),
    };
    const twinJson = {
        ...common,
        extensionsUsed: ['KHR_mesh_quantization'],
        extensionsRequired: ['KHR_mesh_quantization'],
        buffers: [{ uri: `${name}_plain.bin`, byteLength: twin.length }],
        bufferViews: views.map((v, i) => viewJson(v, i, true)),
    };
    compressed.buffers[dataBuffer] = { uri: `${name}.bin`, byteLength: bin.length };
    compressed.buffers[fallbackBuffer] = { byteLength: twin.length, extensions: { [ext]: { fallback: true } } };
    writeFileSync(path.join(out, `${name}.bin`), bin);
    writeFileSync(path.join(out, `${name}_plain.bin`), twin);
    writeFileSync(path.join(out, `${name}.gltf`), JSON.stringify(compressed, null, 1));
    writeFileSync(path.join(out, `${name}_plain.gltf`), JSON.stringify(twinJson, null, 1));
}
gltf('KHR_meshopt_compression', 1);
gltf('EXT_meshopt_compression', 0);
console.log(`${out}: ${vectors.length} codec vectors, khr.gltf, ext.gltf and their plain twins`);
