// Runs npm scripts at the same time: `node scripts/together.mjs test:worker typecheck`. The first script's output
// is shown as it comes; each other script's is held and shown when that script ends, so no lines interleave.
// Exits 0 when every script passed, else 1, naming the scripts that failed.
//
// `npm test` runs the type checks beside the worker suite: tsc keeps one core busy while the suite leaves part of
// a small machine idle (it waits on alarms, outboxes and session ends), so together they take less time than one
// after the other (docs/development.md).
import { spawn } from "node:child_process";

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  console.error("usage: node scripts/together.mjs <npm script> [<npm script> ...]");
  process.exit(2);
}

function run(script, live) {
  return new Promise((done) => {
    const child = spawn("npm", ["run", script], { stdio: live ? "inherit" : ["ignore", "pipe", "pipe"] });
    const held = [];
    if (!live) {
      child.stdout.on("data", (chunk) => held.push(chunk));
      child.stderr.on("data", (chunk) => held.push(chunk));
    }
    child.once("error", (error) => {
      held.push(Buffer.from(`could not start npm run ${script}: ${error.message}\n`));
      done({ script, code: 1, held });
    });
    child.once("close", (code, signal) => {
      if (!live && held.length > 0) {
        process.stdout.write(`\n== npm run ${script}\n`);
        for (const chunk of held) process.stdout.write(chunk);
      }
      done({ script, code: code ?? (signal ? 1 : 0), held });
    });
  });
}

const results = await Promise.all(scripts.map((script, index) => run(script, index === 0)));
const failed = results.filter((result) => result.code !== 0).map((result) => result.script);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.map((script) => `npm run ${script}`).join(", ")}`);
  process.exit(1);
}
