// SPDX-License-Identifier: MIT
// What the browser tests (tests/web/test.mjs) and the browser benchmark (bench/web/) share: a
// static HTTP server on localhost and headless Chromium (Debian's package) driven by
// puppeteer-core.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.gltf': 'model/gltf+json',
  '.glb': 'model/gltf-binary',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.json': 'application/json',
};

// Serves each URL prefix from its folder ({ '/': 'build/web', '/samples/': '../shared/...' });
// resolves to { url, close() } once listening on a free port of 127.0.0.1.
export function serve(mounts) {
  const entries = Object.entries(mounts).sort((a, b) => b[0].length - a[0].length);
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    const mount = entries.find(([prefix]) => url.startsWith(prefix));
    let file = mount && path.join(mount[1], url.slice(mount[0].length));
    if (file && url.endsWith('/')) file = path.join(file, 'index.html');
    if (!mount || !path.resolve(file).startsWith(path.resolve(mount[1])) || !fs.existsSync(file) ||
        !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`not found: ${url}\n`);
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
      'cache-control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() });
    });
  });
}

// Headless Chromium with WebGL2 through SwiftShader and a fresh profile (removed by close()).
export async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
      '--ignore-gpu-blocklist', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', `--user-data-dir=${profile}`,
    ],
  });
  const close = browser.close.bind(browser);
  browser.close = async () => {
    await close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return browser;
}
