import { defineConfig } from "vite";

// Source maps let the test count the copies of React in the build.
export default defineConfig({ build: { sourcemap: true } });
