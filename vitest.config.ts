import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Workspace packages export their TypeScript sources under the "source" condition,
    // so tests always run the current code without a build step.
    conditions: ["source"],
  },
  test: {
    include: ["packages/*/src/**/*.test.{ts,tsx}", "examples/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
