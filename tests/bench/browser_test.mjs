// Checks fastread-bench's report.html as a reader sees it, in Chromium (Debian's chromium,
// driven by playwright-core):
//   - every chart's text lies inside its SVG and overlaps no other text of the chart (no
//     label clipped or printed over another), and its bars lie inside it;
//   - the summary's figures equal the medians of results.json, to the digits shown, in the
//     unit each names;
//   - every family has its section, contents entry, tables and chart; every table column
//     with figures has its fastest row marked; every task's default row is highlighted in
//     each table it appears in;
//   - a screenshot of the summary and of each family's first screen, in OUT/screenshots.
// usage: node browser_test.mjs OUT_DIR   (CHROMIUM=path overrides /usr/bin/chromium)
import { chromium } from "playwright-core";
import { readFileSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";

const out = resolve(process.argv[2] ?? ".");
const problems = [];
const problem = (text) => problems.push(text);

// Benchmark name -> median aggregate of results.json.
const medians = new Map();
for (const run of JSON.parse(readFileSync(`${out}/results.json`, "utf8")).benchmarks) {
  if (run.aggregate_name === "median" || (run.run_type === "iteration" && (run.repetitions ?? 1) === 1)) {
    medians.set(run.run_name.split("/min_time")[0], run);
  }
}
const timeUnits = { s: 1, ms: 1e-3, "µs": 1e-6, ns: 1e-9 };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.goto(`file://${out}/report.html`);

// Charts: geometry of every text and bar, in each SVG's own coordinates.
const charts = await page.$$eval("svg", (svgs) =>
  svgs.map((svg) => {
    const width = svg.width.baseVal.value, height = svg.height.baseVal.value;
    const boxes = (selector) =>
      [...svg.querySelectorAll(selector)].map((el) => {
        const b = el.getBBox();
        return { text: el.textContent, x: b.x, y: b.y, w: b.width, h: b.height };
      });
    return { family: svg.dataset.family, width, height, texts: boxes("text"), bars: boxes("rect.bar") };
  }),
);
for (const chart of charts) {
  const where = `chart ${chart.family}`;
  if (chart.bars.length === 0) problem(`${where}: no bars`);
  for (const t of [...chart.texts, ...chart.bars]) {
    if (t.x < -0.5 || t.y < -0.5 || t.x + t.w > chart.width + 0.5 || t.y + t.h > chart.height + 0.5) {
      problem(`${where}: "${t.text}" at (${t.x.toFixed(1)}, ${t.y.toFixed(1)}) size ${t.w.toFixed(1)}x${t.h.toFixed(1)} leaves the ${chart.width}x${chart.height} SVG`);
    }
  }
  // Text on text: glyph boxes may touch, not overlap by more than half a pixel each way.
  const texts = chart.texts.filter((t) => t.w > 0 && t.text.trim() !== "");
  for (let i = 0; i < texts.length; ++i) {
    for (let j = i + 1; j < texts.length; ++j) {
      const a = texts[i], b = texts[j];
      const dx = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      const dy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
      if (dx > 0.5 && dy > 2) {
        problem(`${where}: "${a.text}" and "${b.text}" overlap (${dx.toFixed(1)} x ${dy.toFixed(1)} px)`);
      }
    }
  }
}

// The summary's figures against results.json.
const figures = await page.$$eval("table.summary td.fig", (cells) =>
  cells.map((c) => ({ bench: c.dataset.bench, unit: c.dataset.unit, text: c.textContent })),
);
for (const f of figures) {
  const run = medians.get(f.bench);
  if (!run) {
    problem(`summary: ${f.bench} is not in results.json`);
    continue;
  }
  const m = f.text.match(/^([0-9]+)(?:\.([0-9]+))?(?: (s|ms|µs|ns))?$/);
  if (!m) {
    problem(`summary: ${f.bench}: "${f.text}" is not a figure`);
    continue;
  }
  const digits = m[2] ? m[2].length : 0;
  const scale = m[3] ? timeUnits[m[3]] : 1;
  const shown = Number(m[1] + (m[2] ? "." + m[2] : "")) * scale;
  const want = f.unit === "time" ? run.real_time / 1e3 : run.cycles_per_byte;
  if (f.unit === "time" && run.time_unit !== "ms") problem(`results.json: ${f.bench} is in ${run.time_unit}`);
  if ((f.unit === "time") !== Boolean(m[3])) problem(`summary: ${f.bench}: "${f.text}" has the wrong unit for ${f.unit}`);
  const half = 0.5 * 10 ** -digits * scale;
  if (Math.abs(shown - want) > half * 1.001 + 1e-12) {
    problem(`summary: ${f.bench} shows ${f.text}, results.json's median is ${want}`);
  }
}
if (figures.length === 0) problem("summary: no figures");

// Sections, contents, tables, marks, defaults.
const families = charts.map((c) => c.family);
const sections = await page.$$eval("h2[id]", (hs) => hs.map((h) => h.id));
const contents = await page.$$eval("nav a", (as) => as.map((a) => a.getAttribute("href")));
for (const target of contents) {
  if ((await page.$(target)) === null) problem(`contents: ${target} leads nowhere`);
}
const summaryDefaults = await page.$$eval("table.summary tr", (rows) =>
  rows.slice(1).map((r) => ({ family: r.closest("table").dataset.family, row: r.cells[2]?.textContent })),
);
for (const family of families) {
  if (!sections.includes(family)) problem(`${family}: no section`);
  if (!contents.includes(`#${family}`)) problem(`${family}: not in the contents`);
  const tables = await page.$$eval(`table[data-family="${family}"]:not(.summary)`, (ts) =>
    ts.map((t) => {
      const rows = [...t.rows];
      const columns = rows[0].cells.length;
      const best = [];
      for (let c = 1; c < columns; ++c) {
        const cells = rows.slice(1).map((r) => r.cells[c]);
        best.push({
          figures: cells.filter((x) => x.dataset.bench).length,
          marked: cells.filter((x) => x.classList.contains("best")).length,
        });
      }
      return {
        mode: t.dataset.mode,
        best,
        defaults: rows.filter((r) => r.classList.contains("default")).map((r) => r.cells[0].textContent),
        rows: rows.slice(1).map((r) => r.cells[0].textContent),
      };
    }),
  );
  if (tables.length === 0) problem(`${family}: no tables`);
  for (const t of tables) {
    t.best.forEach((b, c) => {
      if (b.figures > 0 && b.marked === 0) problem(`${family} ${t.mode}: column ${c + 1} has no fastest row marked`);
    });
  }
  const defaults = new Set(summaryDefaults.filter((d) => d.family === family).map((d) => d.row));
  for (const row of defaults) {
    for (const t of tables) {
      if (t.rows.includes(row) && !t.defaults.includes(row)) {
        problem(`${family} ${t.mode}: the default row "${row}" is not highlighted`);
      }
    }
  }
}

// Screenshots: the summary, and each family's first screen.
mkdirSync(`${out}/screenshots`, { recursive: true });
await page.evaluate(() => window.scrollTo(0, 0));
await page.screenshot({ path: `${out}/screenshots/summary.png` });
for (const family of families) {
  await page.evaluate((id) => document.getElementById(id).scrollIntoView(), family);
  await page.screenshot({ path: `${out}/screenshots/${family}.png` });
}
await browser.close();

console.log(
  `browser_test: ${charts.length} charts, ${charts.reduce((n, c) => n + c.texts.length, 0)} chart texts, ` +
    `${figures.length} summary figures, ${families.length} families: ` +
    (problems.length ? "problems below" : "all good") + `; screenshots in ${out}/screenshots`,
);
for (const p of problems) console.log(`browser_test: ${p}`);
process.exit(problems.length ? 1 : 0);
