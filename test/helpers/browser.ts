/**
 * A real headless Chromium for page tests, driven by playwright-core. On Linux x64 the binary comes from the
 * @sparticuz/chromium npm package (so `npm ci && npm test` needs no system browser); set CHROMIUM_PATH to use
 * a browser installed on the machine instead (required on other platforms).
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const SAFE_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

async function executablePath(): Promise<{ path: string; args: string[] }> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist`);
    return { path: configured, args: SAFE_ARGS };
  }
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      "The bundled Chromium (@sparticuz/chromium) is Linux x64 only: set CHROMIUM_PATH to a Chromium or Chrome binary.",
    );
  }
  const { default: sparticuz } = await import("@sparticuz/chromium");
  const path = await sparticuz.executablePath();
  const args = [
    ...new Set([
      ...sparticuz.args.filter((arg) => !arg.startsWith("--headless") && arg !== "--single-process"),
      ...SAFE_ARGS,
    ]),
  ];
  return { path, args };
}

export async function launchBrowser(): Promise<Browser> {
  const { path, args } = await executablePath();
  return chromium.launch({ executablePath: path, args, headless: true });
}
