import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `npm run test:consumer`: the consumer test alone, never part of `npm test` (it packs the
// packages and installs from the registry).
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["test/consumer/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
