/**
 * Traversal and injection over real HTTP: hostile paths, names, methods and query strings
 * against the bundle, metadata and `/static/` routes, through the node handler and the
 * framework bridges (each in a real server on a loopback port). Secrets are planted beside
 * the components, in the build directory's parent and behind a symlink out of the source;
 * no answer may ever carry one, every answer is a 4xx, and every answer svc gives is its JSON
 * error body. The secret files' access times show they were never even read.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Running } from "../conformance/drivers/driver.ts";
import { nodeDriver } from "../conformance/drivers/node.ts";
import {
  ComponentRegistry,
  contentHash,
  createHandlers,
  ManifestError,
  silentLogger,
} from "../conformance/svc.ts";
import {
  DRIVERS,
  ERROR_KINDS,
  encodeAll,
  JSON_TYPE,
  type RawAnswer,
  recordingLogger,
  sendRaw,
  tempDirs,
  utf8Bytes,
} from "./helpers.ts";

const tempDir = tempDirs();

/** A fresh secret per run, so a match can only come from reading the planted file. */
const token = (label: string) => `SECRET-${label}-${randomBytes(8).toString("hex")}`;

interface Planted {
  root: string;
  components: string;
  buildDir: string;
  secrets: Record<string, { path: string; text: string }>;
}

/**
 * root/
 *   SECRET.txt, evil.js, manifest.json    ← the build directory's parent
 *   outside/index.tsx, outside/SECRET.txt  ← a would-be component outside the source
 *   components/
 *     SECRET.txt                           ← beside the components
 *     greeting/index.tsx, schema.json, notes.txt (not imported: not servable either)
 *     escape → ../outside                  (symlink out of the source)
 *   build/manifest.json, build/bundles/greeting.<hash>.js
 */
function plant(): Planted {
  const root = tempDir("svc-traversal-");
  const secrets: Planted["secrets"] = {};
  const write = (path: string, text: string) => {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  const secret = (key: string, path: string, wrap: (t: string) => string = (t) => t) => {
    const text = token(key);
    secrets[key] = { path: join(root, path), text };
    write(path, wrap(text));
  };
  secret("parent", "SECRET.txt");
  secret("parentJs", "evil.js", (t) => `export default ${JSON.stringify(t)};\n`);
  secret("parentManifest", "manifest.json", (t) => JSON.stringify({ greeting: { note: t } }));
  secret("outside", "outside/index.tsx", (t) => `export default () => ${JSON.stringify(t)};\n`);
  secret("outsideFile", "outside/SECRET.txt");
  secret("besideComponents", "components/SECRET.txt");
  secret("inComponent", "components/greeting/notes.txt");
  write("components/greeting/index.tsx", 'export default () => "hello from greeting";\n');
  write("components/greeting/schema.json", JSON.stringify({ title: "Greeting" }));
  symlinkSync(join(root, "outside"), join(root, "components", "escape"));

  const code = Buffer.from('export default () => "prebuilt greeting";\n');
  const hash = contentHash(code);
  write(`build/bundles/greeting.${hash}.js`, code.toString());
  write(
    "build/manifest.json",
    JSON.stringify({ greeting: { file: `bundles/greeting.${hash}.js`, hash } }),
  );
  // Access times far in the past, modification times now: any read moves the access time
  // forward (Linux's relatime updates it when it is older than the modification time).
  const past = new Date(Date.now() - 86_400_000 * 3);
  for (const { path } of Object.values(secrets)) utimesSync(path, past, new Date());
  return {
    root,
    components: join(root, "components"),
    buildDir: join(root, "build"),
    secrets,
  };
}

/** The hostile things to put where a component name or a static path goes. */
const PAYLOADS: readonly { label: string; raw: string }[] = [
  { label: "..", raw: ".." },
  { label: "../SECRET.txt", raw: "../SECRET.txt" },
  { label: "../../SECRET.txt", raw: "../../SECRET.txt" },
  { label: "../../../SECRET.txt", raw: "../../../SECRET.txt" },
  { label: "../evil", raw: "../../evil" },
  { label: "encoded slash", raw: "..%2f..%2fSECRET.txt" },
  { label: "encoded slash, upper case", raw: "..%2F..%2FSECRET.txt" },
  { label: "encoded dots", raw: "%2e%2e/%2e%2e/SECRET.txt" },
  { label: "encoded dots and slash", raw: "%2e%2e%2f%2e%2e%2fSECRET.txt" },
  { label: "mixed dots", raw: ".%2e/.%2e/SECRET.txt" },
  { label: "double-encoded", raw: "%252e%252e%252f%252e%252e%252fSECRET.txt" },
  { label: "double-encoded slash", raw: "..%252f..%252fSECRET.txt" },
  { label: "triple-encoded", raw: "%25252e%25252e%25252fSECRET.txt" },
  { label: "encoded backslash", raw: "..%5c..%5cSECRET.txt" },
  { label: "raw backslash", raw: "..\\..\\SECRET.txt" },
  { label: "backslash to component file", raw: "greeting\\notes.txt" },
  { label: "dots and slashes doubled", raw: "....//....//SECRET.txt" },
  { label: "semicolon segment", raw: "..;/..;/SECRET.txt" },
  { label: "overlong UTF-8 dot and slash", raw: "%c0%ae%c0%ae%c0%af%c0%ae%c0%ae%c0%afSECRET.txt" },
  { label: "overlong UTF-8 (3 bytes)", raw: "%e0%80%ae%e0%80%ae/SECRET.txt" },
  {
    label: "fullwidth percent ％２ｅ (raw UTF-8)",
    raw: utf8Bytes("％２ｅ％２ｅ／％２ｅ％２ｅ／SECRET.txt"),
  },
  { label: "fullwidth percent ％２ｅ (encoded)", raw: encodeAll("％２ｅ％２ｅ／SECRET.txt") },
  { label: "two-dot leader ‥ (raw UTF-8)", raw: utf8Bytes("‥/‥/SECRET.txt") },
  { label: "two-dot leader ‥ (encoded)", raw: encodeAll("‥／‥／SECRET.txt") },
  { label: "fullwidth dots and solidus (raw UTF-8)", raw: utf8Bytes("．．／．．／SECRET.txt") },
  { label: "fullwidth dots and solidus (encoded)", raw: "%EF%BC%8E%EF%BC%8E%EF%BC%8FSECRET.txt" },
  { label: "fullwidth reverse solidus", raw: encodeAll("..＼..＼SECRET.txt") },
  { label: "division and fraction slash", raw: encodeAll("..∕..⁄SECRET.txt") },
  { label: "NUL byte", raw: "%00" },
  { label: "NUL byte before extension", raw: "greeting%00.txt" },
  { label: "NUL byte then traversal", raw: "greeting%00/../../SECRET.txt" },
  { label: "double-encoded NUL", raw: "greeting%2500" },
  { label: "CR LF injection", raw: "greeting%0d%0aX-Injected:%20yes" },
  { label: "absolute path (encoded)", raw: "%2fetc%2fpasswd" },
  { label: "absolute path to the secret", raw: "PLACEHOLDER_ABSOLUTE" },
  { label: "Windows drive", raw: "C:%5cWindows%5cwin.ini" },
  { label: "file URL", raw: "file:%2f%2f%2fetc%2fpasswd" },
  { label: "component file through an encoded slash", raw: "greeting%2fnotes.txt" },
  { label: "component schema through an encoded slash", raw: "greeting%2fschema.json" },
  { label: "the symlinked-out component", raw: "escape" },
  { label: "the symlinked-out component's file", raw: "escape%2fSECRET.txt" },
  { label: "a name of 5000 characters", raw: "a".repeat(5000) },
  { label: "5000 characters of ../", raw: "..%2f".repeat(1000) },
  { label: "5000 dots", raw: ".".repeat(5000) },
  { label: "a name of 200 encoded look-alikes", raw: encodeAll("．".repeat(200)) },
];

/** Paths below the mount for one payload: every route a name or a path reaches. */
function targets(raw: string): string[] {
  return [
    `/bundles/${raw}.js`,
    `/bundles/${raw}`,
    `/bundles/${raw}/metadata`,
    `/bundles/greeting/${raw}`,
    `/static/${raw}`,
    `/static/bundles/${raw}`,
    `/static/${raw}/manifest.json`,
    `/${raw}`,
  ];
}

/**
 * What no answer may ever carry: a planted secret, an absolute path of the server (unless the
 * client sent it itself), an injected header.
 */
function checkNoLeak(answer: RawAnswer, planted: Planted, target: string, where: string): void {
  const text = answer.body.toString("latin1");
  for (const { text: secret } of Object.values(planted.secrets)) {
    expect(text, `${where}: a secret leaked`).not.toContain(secret);
  }
  if (!decodeAll(target).includes(planted.root)) {
    expect(text, `${where}: an absolute path leaked`).not.toContain(planted.root);
  }
  expect(answer.headers["x-injected"], `${where}: header injection`).toBeUndefined();
}

function check4xx(answer: RawAnswer, where: string): void {
  expect(answer.status, `${where}: status`).toBeGreaterThanOrEqual(400);
  expect(answer.status, `${where}: status`).toBeLessThan(500);
}

/** Percent-decodes repeatedly (as far as it goes), to see what a target could mean. */
function decodeAll(text: string): string {
  let current = text;
  for (let i = 0; i < 4; i++) {
    try {
      const next = decodeURIComponent(current);
      if (next === current) break;
      current = next;
    } catch {
      break;
    }
  }
  return current;
}

/** Bytes an HTTP/1.1 request target may not hold raw: Node's parser answers 400 itself. */
const rejectedByParser = (target: string) => /[^\x21-\x7e]/.test(target);

/** A malformed percent-escape (`%c0%ae`, `%zz`, a lone `%`): Fastify's router refuses it. */
function hasBadEscape(target: string): boolean {
  try {
    decodeURI(target);
    return false;
  } catch {
    return true;
  }
}

/** What a WHATWG URL parser (fetch-based transports) turns a raw target into. */
function normalised(target: string): string {
  const url = new URL(target, "http://svc.test");
  return url.pathname + url.search;
}

/** An svc JSON error body (`{ error, message, name? }` and nothing else). */
function checkSvcError(answer: RawAnswer, where: string): void {
  expect(answer.headers["content-type"], `${where}: content type`).toBe(JSON_TYPE);
  const body = JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>;
  expect(ERROR_KINDS, `${where}: error kind`).toContain(body.error);
  expect(typeof body.message, `${where}: message`).toBe("string");
  expect(Object.keys(body).every((k) => ["error", "message", "name"].includes(k))).toBe(true);
}

/** Whether svc (rather than the framework, outside svc's mount) gave this answer. */
function answeredBySvc(answer: RawAnswer): boolean {
  if (answer.headers["content-type"] !== JSON_TYPE) return false;
  try {
    const body = JSON.parse(answer.body.toString("utf8")) as { error?: unknown };
    return ERROR_KINDS.includes(body.error as never);
  } catch {
    return false;
  }
}

const planted = plant();

function accessTimes(): Record<string, number> {
  return Object.fromEntries(
    Object.entries(planted.secrets).map(([key, { path }]) => [key, statSync(path).atimeMs]),
  );
}

describe.each(DRIVERS)("traversal and injection: $name", (driver) => {
  let server: Running;
  const prefix = "/api";
  const atimesBefore = accessTimes();

  beforeAll(async () => {
    const registry = new ComponentRegistry(planted.components, { logger: silentLogger });
    server = await driver.start({
      source: registry,
      options: { logger: silentLogger, buildDir: planted.buildDir },
      prefix,
    });
  });
  afterAll(() => server.close());

  it("serves the real component and build files (the fixture works)", async () => {
    const bundle = await sendRaw(server.url, `${prefix}/bundles/greeting.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.body.toString()).toContain("prebuilt greeting");
    const manifest = await sendRaw(server.url, `${prefix}/static/manifest.json`);
    expect(manifest.status).toBe(200);
    expect(manifest.body.toString()).toContain("greeting");
  });

  for (const { label, raw } of PAYLOADS) {
    it(`refuses ${label} on every route`, async () => {
      const payload =
        raw === "PLACEHOLDER_ABSOLUTE" ? encodeAll(planted.secrets.parent?.path ?? "") : raw;
      const requests = targets(payload).flatMap((t) =>
        (["GET", "HEAD"] as const).map((method) => [`${prefix}${t}`, method] as const),
      );
      // Concurrently: the server must keep each answer apart, too.
      await Promise.all(
        requests.map(async ([target, method]) => {
          const where = `${method} ${target.slice(0, 120)}`;
          const answer = await sendRaw(server.url, target, { method });
          checkNoLeak(answer, planted, target, where);
          if (rejectedByParser(target)) {
            // Raw non-ASCII bytes: Node's HTTP parser refuses the request line; svc never sees it.
            expect(answer.status, where).toBe(400);
            return;
          }
          if (driver.normalisesDotSegments && normalised(target) !== target) {
            // The transport's URL parser resolved `..` (and `\`) first: the request svc sees is
            // another one, answered exactly as that one is (a listing, a 404 outside the mount),
            // unless the transport refuses the raw target outright (@hono/node-server: `\`).
            const direct = await sendRaw(server.url, normalised(target), { method });
            if (answer.status !== 400 || answer.body.length > 0) {
              expect([answer.status, answer.body.toString()], where).toEqual([
                direct.status,
                direct.body.toString(),
              ]);
            }
            return;
          }
          check4xx(answer, where);
          if (method === "HEAD") {
            expect(answer.body.length, `${where}: HEAD body`).toBe(0);
            return;
          }
          if (driver.name.startsWith("fastify") && hasBadEscape(target)) {
            // Fastify's router refuses a malformed escape before any route runs, with its own
            // 400 body: a plugin cannot change that (see docs/SECURITY.md).
            expect(answer.status, where).toBe(400);
            expect(JSON.parse(answer.body.toString()).code, where).toBe("FST_ERR_BAD_URL");
            return;
          }
          checkSvcError(answer, where);
        }),
      );
    });
  }

  it("refuses a raw NUL byte and a raw space in the request line (before any route)", async () => {
    for (const target of [`${prefix}/bundles/gree\0ting.js`, `${prefix}/static/a b`]) {
      const answer = await sendRaw(server.url, target);
      // Node's HTTP parser rejects these lines itself: 400, and svc never sees them.
      expect(answer.status).toBe(400);
      checkNoLeak(answer, planted, target, target);
    }
  });

  it("answers every method other than GET/HEAD (and OPTIONS) with 405 and the JSON body", async () => {
    const paths = [
      "/bundles",
      "/bundles/greeting.js",
      "/bundles/greeting/metadata",
      "/bundles/..%2f..%2fSECRET.txt.js",
      "/static/manifest.json",
      "/static/..%2fSECRET.txt",
      "/loader.js",
    ];
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "PROPFIND", "SEARCH"]) {
      for (const path of paths) {
        const where = `${method} ${path}`;
        const answer = await sendRaw(server.url, `${prefix}${path}`, {
          method,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ path: "../../SECRET.txt" }),
        });
        checkNoLeak(answer, planted, path, where);
        if (answer.status === 405 || answeredBySvc(answer)) {
          expect(answer.status, where).toBe(405);
          checkSvcError(answer, where);
          expect(answer.headers.allow).toBe("GET, HEAD, OPTIONS");
        } else {
          // Only a method the framework itself does not route may be answered by the framework.
          expect(["PROPFIND", "SEARCH"], `${where}: ${answer.status}`).toContain(method);
        }
      }
    }
  });

  it("ignores an overlong query string on a real bundle and refuses it on a hostile path", async () => {
    const query = `?${"../".repeat(2500)}&x=${"%00".repeat(500)}`;
    const ok = await sendRaw(server.url, `${prefix}/bundles/greeting.js${query}`);
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toContain("prebuilt greeting");
    const hostile = await sendRaw(server.url, `${prefix}/bundles/..%2fSECRET.txt.js${query}`);
    checkNoLeak(hostile, planted, "", "overlong query on a hostile path");
    check4xx(hostile, "overlong query on a hostile path");
    checkSvcError(hostile, "overlong query on a hostile path");
    // Beyond the server's header limit (16 KiB) Node answers 431 itself.
    const huge = await sendRaw(server.url, `${prefix}/bundles/greeting.js?${"a".repeat(20_000)}`);
    expect(huge.status).toBe(431);
  });

  it("does not discover or serve the component behind a symlink out of the source", async () => {
    const list = await sendRaw(server.url, `${prefix}/bundles`);
    expect(JSON.parse(list.body.toString())).toEqual([{ name: "greeting" }]);
    const linked = await sendRaw(server.url, `${prefix}/bundles/escape.js`);
    expect(linked.status).toBe(404);
    expect(JSON.parse(linked.body.toString())).toMatchObject({ error: "ComponentNotFound" });
  });

  it("never read a planted secret", () => {
    expect(accessTimes()).toEqual(atimesBefore);
    // The check can fail: reading a file here does move its access time.
    const control = join(planted.root, "control.txt");
    writeFileSync(control, "control");
    utimesSync(control, new Date(Date.now() - 86_400_000 * 3), new Date());
    const before = statSync(control).atimeMs;
    readFileSync(control);
    expect(statSync(control).atimeMs).toBeGreaterThan(before);
  });
});

describe("symlinks out of a source, with followExternalSymlinks (node handler)", () => {
  it("serves the linked component only when the option is set", async () => {
    const on = await nodeDriver.start({
      source: new ComponentRegistry(planted.components, {
        logger: silentLogger,
        followExternalSymlinks: true,
      }),
      options: { logger: silentLogger },
      prefix: "/api",
    });
    try {
      const list = await sendRaw(on.url, "/api/bundles");
      expect(JSON.parse(list.body.toString())).toEqual([{ name: "escape" }, { name: "greeting" }]);
      const bundle = await sendRaw(on.url, "/api/bundles/escape.js");
      expect(bundle.status).toBe(200);
      // With the option set, the linked directory *is* a component: its code is served.
      expect(bundle.body.toString()).toContain(planted.secrets.outside?.text);
    } finally {
      await on.close();
    }
  });
});

describe("manifest entries pointing outside the build directory", () => {
  function buildDirWith(entry: Record<string, unknown>): string {
    const dir = mkdtempSync(join(planted.root, "build-"));
    mkdirSync(join(dir, "bundles"));
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ leak: entry }));
    return dir;
  }
  const secret = planted.secrets.parent as { path: string; text: string };
  const secretHash = createHash("sha256").update(secret.text).digest("hex").slice(0, 12);

  it.each([
    "../SECRET.txt",
    "../../SECRET.txt",
    "bundles/../../SECRET.txt",
    "bundles/../../../etc/passwd",
    "./bundles/../../SECRET.txt",
    "bundles\\..\\..\\SECRET.txt",
    "PLACEHOLDER_ABSOLUTE",
    "C:\\Windows\\win.ini",
    "bundles/leak.js\0.txt",
    "..",
    ".",
  ])("refuses %j when the handler set is created", (file) => {
    const path = file === "PLACEHOLDER_ABSOLUTE" ? secret.path : file;
    const buildDir = buildDirWith({ file: path, hash: secretHash });
    expect(() =>
      createHandlers(new ComponentRegistry(planted.components, { logger: silentLogger }), {
        buildDir,
        logger: silentLogger,
      }),
    ).toThrow(ManifestError);
  });

  it.each(DRIVERS)(
    "refuses a bundle file that is a symlink out of the build directory ($name)",
    async (driver) => {
      const buildDir = buildDirWith({ file: `bundles/leak.${secretHash}.js`, hash: secretHash });
      symlinkSync(secret.path, join(buildDir, "bundles", `leak.${secretHash}.js`));
      const server = await driver.start({
        source: new ComponentRegistry(planted.components, { logger: silentLogger }),
        options: { logger: silentLogger, buildDir },
        prefix: "/api",
      });
      try {
        for (const path of ["/api/bundles/leak.js", `/api/static/bundles/leak.${secretHash}.js`]) {
          const answer = await sendRaw(server.url, path);
          expect(answer.body.toString(), path).not.toContain(secret.text);
          expect(answer.body.toString(), path).not.toContain(planted.root);
          expect(answer.status, path).not.toBe(200);
          checkSvcError(answer, path);
        }
      } finally {
        await server.close();
      }
    },
  );

  it("refuses a manifest swapped in at run time whose entry points outside, and keeps serving the previous build", async () => {
    const code = "export default 1;\n";
    const hash = contentHash(Buffer.from(code));
    const buildDir = buildDirWith({ file: `bundles/leak.${hash}.js`, hash });
    writeFileSync(join(buildDir, "bundles", `leak.${hash}.js`), code);
    const logger = recordingLogger();
    const server = await nodeDriver.start({
      source: new ComponentRegistry(planted.components, { logger: silentLogger }),
      options: { logger, buildDir },
      prefix: "/api",
    });
    try {
      expect((await sendRaw(server.url, "/api/bundles/leak.js")).status).toBe(200);
      const manifest = JSON.stringify({ leak: { file: "../SECRET.txt", hash: secretHash } });
      writeFileSync(join(buildDir, "manifest.json.next"), manifest);
      renameSync(join(buildDir, "manifest.json.next"), join(buildDir, "manifest.json"));
      for (let i = 0; i < 3; i++) {
        const bundle = await sendRaw(server.url, "/api/bundles/leak.js");
        expect(bundle.status).toBe(200);
        expect(bundle.body.toString()).toBe(code);
        const metadata = await sendRaw(server.url, "/api/bundles/leak/metadata");
        expect(JSON.parse(metadata.body.toString())).toMatchObject({ name: "leak", hash });
        const list = await sendRaw(server.url, "/api/bundles");
        expect(list.status).toBe(200);
      }
      // The static route serves the manifest in use, never the refused one (nor what it
      // points at).
      const file = await sendRaw(server.url, "/api/static/manifest.json");
      expect(file.status).toBe(200);
      expect(JSON.parse(file.body.toString())).toEqual({
        leak: { file: `bundles/leak.${hash}.js`, hash },
      });
      expect(file.body.toString()).not.toContain(secret.text);
      // Reported once, naming the problem.
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toContain("points outside the build directory");
      expect(logger.errors).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
