/**
 * The server's sources. Tests import them by path, not as `@svc/server`: that name resolves
 * to the package's build output (`dist/`) for anything loaded outside Vite's transform, which
 * would test stale code.
 */
export * from "../../packages/server/src/index.ts";
