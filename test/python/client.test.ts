/**
 * The Python client (`clients/python`, standard library only) against a real svc: its
 * `unittest` suites run in Debian's python3, given this svc's URL (`SVC_TEST_URL`) and a URL
 * that answers what svc saw — connections and requests (`SVC_TEST_STATS_URL`).
 */
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DevServer } from "@svc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFiles } from "../browser/helpers.ts";
import { COMPONENTS } from "./components.ts";
import {
  CLIENT_DIR,
  freePort,
  PYTHON,
  runPython,
  runUnittest,
  type Seen,
  SKIP_LINE,
  startSvc,
} from "./python.ts";

if (PYTHON === undefined) console.log(SKIP_LINE);

/** pip and setuptools, to install the client offline (Debian: python3-pip python3-setuptools). */
const PIP =
  PYTHON !== undefined &&
  [
    ["-m", "pip", "--version"],
    ["-c", "import setuptools"],
  ].every((args) => spawnSync(PYTHON as string, args, { stdio: "ignore" }).status === 0);

describe.skipIf(PYTHON === undefined)("svc_islands (Python client)", () => {
  let dir: string;
  let svc: DevServer;
  let stats: Server;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-python-"));
    await writeFiles(dir, COMPONENTS);
    // Islands name the API as a page of another origin reaches it (the recommended setup).
    const port = await freePort();
    const started = await startSvc({
      componentsDir: dir,
      port,
      publicUrl: `http://127.0.0.1:${port}/api`,
      renderTimeoutMs: 10_000,
    });
    svc = started.svc;
    const seen: Seen = started.seen;
    stats = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(seen));
    });
    await new Promise<void>((resolve) => stats.listen(0, "127.0.0.1", resolve));
    env = {
      SVC_TEST_URL: started.api,
      SVC_TEST_STATS_URL: `http://127.0.0.1:${(stats.address() as AddressInfo).port}/`,
    };
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => (stats ? stats.close(() => resolve()) : resolve()));
    await svc?.close(1000);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("renders islands and a page of them in one request, in order; shares connections between calls and threads", async () => {
    await runUnittest(
      ["tests.test_client.RenderTest", "tests.test_client.ConnectionsTest", "tests.test_pool"],
      env,
    );
  });

  it("falls back to a container the browser renders (svc's own format) when a render fails, svc is down or too slow; raises for wrong requests", async () => {
    await runUnittest(
      [
        "tests.test_client.ErrorsTest",
        "tests.test_client.UnavailableTest",
        "tests.test_client.DefaultClientTest",
        "tests.test_client.ConfigurationTest",
        "tests.test_html",
      ],
      env,
    );
  });

  it("renders islands from Django templates, views, Jinja2 and Flask", async () => {
    await runUnittest(["tests.test_django", "tests.test_jinja_flask"], env);
  });

  it.skipIf(!PIP)(
    "installs with pip offline (--no-build-isolation): the package, py.typed and the template tags",
    async () => {
      const work = await mkdtemp(join(tmpdir(), "svc-python-pip-"));
      try {
        // From a copy: setuptools builds in the source tree.
        await cp(CLIENT_DIR, join(work, "src"), {
          recursive: true,
          filter: (path) => !path.includes("__pycache__"),
        });
        const pip = await runPython(
          [
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-build-isolation",
            "--no-index",
            "--no-deps",
            "--quiet",
            "--target",
            join(work, "site"),
            join(work, "src"),
          ],
          { cwd: work, env: { PIP_ROOT_USER_ACTION: "ignore", PYTHONPATH: "" } },
        );
        expect(pip.code, pip.output).toBe(0);
        expect((await readdir(join(work, "site/svc_islands"))).sort()).toEqual(
          expect.arrayContaining(["py.typed", "client.py", "flask.py", "jinja.py", "django"]),
        );
        expect(await readdir(join(work, "site/svc_islands/django/templatetags"))).toContain(
          "svc_islands.py",
        );
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  );
});
