// SPDX-License-Identifier: MIT
// The crowd in headless Chromium: web/crowd.html with n Foxes (Fox.glb playing Run, each at its
// own time), driven by arbor through the bridge and by three.js's AnimationMixer, one after the
// other in the same browser. Per driver, window.crowd.measure(frames) runs that many updates
// (animation, hierarchy and skin, 1/60 s apart; no drawing between them) and gives their median
// in ms. Prints one JSON line per driver.
//
// Usage: node bench/web/crowd.mjs [--n N] [--frames F]    (bench/web/run)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch } from '../../tests/web/browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
let n = 1000, frames = 200;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--n') n = Number(args[++i]);
  else if (args[i] === '--frames') frames = Number(args[++i]);
  else throw new Error(`unknown argument '${args[i]}'`);
}
const server = await serve({ '/': path.join(root, 'build/web'), '/samples/': path.resolve(root, '../shared/gltf/samples') });
const browser = await launch();
try {
  for (const driver of ['arbor', 'three']) {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.setViewport({ width: 800, height: 600 });
    await page.goto(`${server.url}/crowd.html?n=${n}&driver=${driver}`);
    await page.waitForSelector('body[data-ready]', { timeout: 600000 });
    const r = await page.evaluate((frames) => {
      window.crowd.pause();
      window.crowd.measure(20); // warm-up
      return { ms: window.crowd.measure(frames), stats: window.crowd.stats(), ua: navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] };
    }, frames);
    console.log(JSON.stringify({ driver, n, frames, updateMs: Number(r.ms.toPrecision(4)), browser: r.ua }));
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
