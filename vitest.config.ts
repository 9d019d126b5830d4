import { configDefaults, defineConfig } from "vitest/config";

// Workspace packages export their TypeScript sources under the "source" condition, so tests
// always run the current code without a build step — whether Vite transforms a module or
// Node loads it as an external dependency.
const conditions = ["source"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ["packages/*/src/**/*.test.{ts,tsx}", "examples/**/*.test.ts", "test/**/*.test.ts"],
    // Installs packed svc into fresh apps from the registry: `npm run test:consumer`.
    exclude: [...configDefaults.exclude, "test/consumer/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
