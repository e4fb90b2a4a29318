// Checks over the repository itself: the deploy configuration and the policy bundle.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { isVitestTeardownRace } from "../helpers/vitest-teardown-race";

const root = join(import.meta.dirname, "..", "..");

describe("deploy configuration", () => {
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const topLevelVars = toml.split(/^\[vars\]$/m)[1]!.split(/^\[/m)[0]!;

  it("leaves development sign-in off in the configuration `wrangler deploy` uses", () => {
    expect(topLevelVars).toMatch(/^ARBITER_DEV_SIGN_IN\s*=\s*"false"\s*$/m);
    expect(toml).not.toMatch(/^\[env\./m);
  });

  it("holds no operator key or directory encryption key: a deployment sets them as secrets", () => {
    expect(toml).not.toMatch(/^\s*(ARBITER_OPERATOR_KEY|DIRECTORY_ENCRYPTION_KEY)\s*=/m);
  });

  it("turns development sign-in on only in npm start (and the tests)", async () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.scripts.start).toBe("node scripts/dev.mjs");
    const { devArguments } = (await import("../../scripts/dev.mjs")) as {
      devArguments(argv: string[], env?: Record<string, string>): string[];
    };
    expect(devArguments([]).join(" ")).toContain("--var ARBITER_DEV_SIGN_IN:true");
    expect(pkg.scripts["deploy:check"]).not.toContain("ARBITER_DEV_SIGN_IN");
    expect(readFileSync(join(root, "vitest.config.ts"), "utf8")).toContain('ARBITER_DEV_SIGN_IN: "true"');
  });

  it("npm start -- --port <n> runs on that port with PUBLIC_URL following it; a PUBLIC_URL of one's own wins", async () => {
    const { devArguments } = (await import("../../scripts/dev.mjs")) as {
      devArguments(argv: string[], env?: Record<string, string>): string[];
    };
    expect(devArguments([])).toEqual([
      "dev",
      "--port",
      "8787",
      "--var",
      "ARBITER_DEV_SIGN_IN:true",
      "--var",
      "PUBLIC_URL:http://localhost:8787",
      "--var",
      "ARBITER_OPERATOR_KEY:dev-operator-key",
    ]);
    expect(devArguments(["--port", "8900"])).toEqual([
      "dev",
      "--port",
      "8900",
      "--var",
      "ARBITER_DEV_SIGN_IN:true",
      "--var",
      "PUBLIC_URL:http://localhost:8900",
      "--var",
      "ARBITER_OPERATOR_KEY:dev-operator-key",
    ]);
    expect(devArguments(["--port=8901", "--ip", "0.0.0.0"])).toEqual([
      "dev",
      "--port",
      "8901",
      "--var",
      "ARBITER_DEV_SIGN_IN:true",
      "--var",
      "PUBLIC_URL:http://localhost:8901",
      "--var",
      "ARBITER_OPERATOR_KEY:dev-operator-key",
      "--ip",
      "0.0.0.0",
    ]);
    expect(devArguments([], { PORT: "8902" })).toContain("PUBLIC_URL:http://localhost:8902");
    expect(
      devArguments(["--port", "8903", "--var", "PUBLIC_URL:https://arbiter.test"]).filter((a) =>
        a.startsWith("PUBLIC_URL"),
      ),
    ).toEqual(["PUBLIC_URL:https://arbiter.test"]);
    // An operator key of one's own wins over the development one.
    expect(
      devArguments(["--var", "ARBITER_OPERATOR_KEY:mine"]).filter((a) => a.startsWith("ARBITER_OPERATOR_KEY")),
    ).toEqual(["ARBITER_OPERATOR_KEY:mine"]);
    expect(() => devArguments(["--port", "lots"])).toThrow('--port expects a port number (1-65535), got "lots".');
  });

  it("never turns on the benchmark's ungoverned tool outside bench:mcp", () => {
    expect(toml).not.toContain("ARBITER_BENCH_BARE");
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    for (const [name, script] of Object.entries(pkg.scripts as Record<string, string>))
      expect(script, name).not.toContain("ARBITER_BENCH_BARE");
    expect(readFileSync(join(root, "vitest.config.ts"), "utf8")).not.toContain("ARBITER_BENCH_BARE");
    expect(readFileSync(join(root, "bench", "mcp.bench.ts"), "utf8")).toContain('ARBITER_BENCH_BARE: "true"');
  });

  it("keeps the pool-compatible date and the CIMD compatibility flag", () => {
    const date = /^compatibility_date\s*=\s*"(\d{4}-\d{2}-\d{2})"/m.exec(toml)![1]!;
    expect(date <= "2026-08-22").toBe(true);
    expect(toml).toMatch(/compatibility_flags\s*=\s*\[[^\]]*"global_fetch_strictly_public"/);
  });
});

describe("policy bundle", () => {
  function listFiles(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory()
        ? listFiles(path)
        : [relative(join(root, "policies"), path).split("\\").join("/")];
    });
  }

  it("bundles every file under policies/ into the Worker", () => {
    const manifest = readFileSync(join(root, "src", "policy", "files.ts"), "utf8");
    const bundled = new Set([...manifest.matchAll(/^\s*"([^"]+)":\s*\w+,?\s*$/gm)].map((m) => m[1]!));
    const onDisk = listFiles(join(root, "policies"));
    expect(onDisk.length).toBeGreaterThan(0);
    const missing = onDisk.filter((file) => !bundled.has(file));
    expect(missing, `policy files not in src/policy/files.ts: ${missing.join(", ")}`).toEqual([]);
    const stale = [...bundled].filter((file) => !onDisk.includes(file));
    expect(stale, `entries in src/policy/files.ts with no file: ${stale.join(", ")}`).toEqual([]);
  });
});

describe("the worker suite's unhandled errors", () => {
  const error = (name: string, message: string) => Object.assign(new Error(message), { name });

  it("drops only vitest's own teardown race, whatever call it names", () => {
    expect(
      isVitestTeardownRace(
        error("EnvironmentTeardownError", '[vitest-worker]: Closing rpc while "resolve" was pending'),
      ),
    ).toBe(true);
    expect(
      isVitestTeardownRace(
        error("EnvironmentTeardownError", '[vitest-worker]: Closing rpc while "onUserConsoleLog" was pending'),
      ),
    ).toBe(true);
  });

  it("keeps every other unhandled error a failure", () => {
    expect(isVitestTeardownRace(error("Error", '[vitest-worker]: Closing rpc while "resolve" was pending'))).toBe(
      false,
    );
    expect(isVitestTeardownRace(error("EnvironmentTeardownError", "something else went wrong"))).toBe(false);
    expect(isVitestTeardownRace(error("TypeError", "Cannot read properties of undefined"))).toBe(false);
  });

  it("is wired into the worker suite's configuration", () => {
    expect(readFileSync(join(root, "vitest.config.ts"), "utf8")).toContain(
      "onUnhandledError: (error) => !isVitestTeardownRace(error)",
    );
  });
});

describe("folder names", () => {
  it("has no folder named spec/ under src/ or test/: tools and people read it as tests (RSpec, Jasmine), and 'spec' already means the OpenAPI document and the MCP specification", () => {
    const folders = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        if (!statSync(path).isDirectory()) return [];
        return [relative(root, path).split("\\").join("/"), ...folders(path)];
      });
    const named = [...folders(join(root, "src")), ...folders(join(root, "test"))].filter(
      (folder) => folder.split("/").at(-1) === "spec",
    );
    expect(named).toEqual([]);
  });
});

describe("file names", () => {
  it("keeps one catalog (the MCP tools, resources and prompts) and one registry (the engine's rules) under src/", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : [relative(root, path).split("\\").join("/")];
      });
    const all = files(join(root, "src"));
    expect(all.filter((file) => /(^|\/)catalog\.ts$/.test(file))).toEqual(["src/mcp/catalog.ts"]);
    expect(all.filter((file) => /registry\.ts$/.test(file))).toEqual(["src/engine/rules/rule-registry.ts"]);
  });
});

describe("the worker suite's way into the Worker", () => {
  it("calls it through test/worker/self.ts, never through cloudflare:test's SELF (workers-sdk#15446 slows each request), but in request-isolation.test.ts", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : [path];
      });
    const importsPoolSelf = files(join(root, "test", "worker"))
      .filter((file) => file.endsWith(".ts"))
      .filter((file) => {
        const text = readFileSync(file, "utf8");
        const fromPool = [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"cloudflare:test"/g)].some((m) =>
          /\bSELF\b/.test(m[1] ?? ""),
        );
        return fromPool || /\{\s*SELF\s*\}\s*=\s*await import\("cloudflare:test"\)/.test(text);
      })
      .map((file) => relative(root, file).split("\\").join("/"));
    // That one file sends a few requests through the pool's binding on purpose: each in a context of its own.
    expect(importsPoolSelf).toEqual(["test/worker/request-isolation.test.ts"]);
  });
});
