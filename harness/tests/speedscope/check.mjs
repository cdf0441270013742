// Opens a speedscope file in speedscope's own page (from file://, no network) in headless
// Chromium with software GL, and reports what the page shows, as one JSON line:
// {"title", "frameFound", "colors", "errors"}.
//
// usage: node check.mjs CHROMIUM INDEX_HTML PROFILE FRAME SCREENSHOT
// FRAME is looked for in the sandwich view's table, which lists functions by self weight.
import { chromium } from 'playwright-core';
import { pathToFileURL } from 'node:url';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, basename } from 'node:path';

const [browserPath, index, profile, frame, screenshot] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: browserPath,
  headless: true,
  args: [
    '--no-sandbox',
    // Let the file:// page read other file:// URLs (the wrapper script below).
    '--allow-file-access-from-files',
    // WebGL without a GPU: SwiftShader.
    '--use-gl=angle',
    '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader',
    '--ignore-gpu-blocklist',
    '--disable-background-networking',
  ],
});
const errors = [];
const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
page.on('pageerror', (e) => errors.push(String(e)));
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
page.on('requestfailed', (r) => errors.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
page.on('request', (r) => {
  if (!r.url().startsWith('file:') && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) {
    errors.push(`network request: ${r.url()}`);
  }
});
// speedscope refuses #profileURL= on a file:// page (it alerts "Cannot load a profile URL when
// loading from file: URL protocol"); #localProfilePath= is its way for file pages, the one its
// own command line uses: it loads file:///PATH as a script, which hands the profile to
// window.speedscope.loadFileFromBase64(name, base64).
const dir = mkdtempSync(join(tmpdir(), 'serprof-speedscope-'));
const wrapper = join(dir, 'profile.js');
const b64 = readFileSync(profile).toString('base64');
writeFileSync(wrapper, `speedscope.loadFileFromBase64(${JSON.stringify(basename(profile))}, ${JSON.stringify(b64)})\n`);
page.on('dialog', (d) => { errors.push(`dialog: ${d.message()}`); d.dismiss(); });
const url = `${pathToFileURL(index)}#localProfilePath=${encodeURIComponent(wrapper.replace(/^\//, ''))}`;
await page.goto(url);
let title = '';
for (let i = 0; i < 100 && !title.includes(' - speedscope'); i++) {
  await page.waitForTimeout(100);
  title = await page.title();
}
// Left heavy view for the picture, then the sandwich view, whose table of functions is DOM.
await page.getByText('Left Heavy', { exact: false }).first().click();
await page.waitForTimeout(500);
const png = await page.screenshot({ path: screenshot });
await page.getByText('Sandwich', { exact: false }).first().click();
let frameFound = false;
for (let i = 0; i < 50 && !frameFound; i++) {
  await page.waitForTimeout(100);
  frameFound = (await page.evaluate(() => document.body.innerText)).includes(frame);
}
// Distinct colours of the screenshot: a blank page has one or two.
const check = await browser.newPage();
const colors = await check.evaluate(async (b64) => {
  const img = new Image();
  img.src = `data:image/png;base64,${b64}`;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.width;
  c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  const seen = new Set();
  for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  return seen.size;
}, png.toString('base64'));
await browser.close();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ title, frameFound, colors, errors }));
