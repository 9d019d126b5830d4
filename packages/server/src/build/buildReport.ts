import { relative } from "node:path";
import type { BuildResult } from "./buildResult.ts";

/** `1.23 kB`, as build tools print sizes. */
export function formatSize(bytes: number): string {
  return bytes < 1000 ? `${bytes} B` : `${(bytes / 1000).toFixed(2)} kB`;
}

/** The table `svc build` prints: component, size, gzip size, hash; then the totals. */
export function formatBuildReport(result: BuildResult, cwd = process.cwd()): string {
  const rows = result.bundles.map((b) => [
    b.name,
    formatSize(b.size),
    formatSize(b.gzipSize),
    b.hash,
  ]);
  const header = ["component", "size", "gzip", "hash"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === 1 || i === 2 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
      )
      .join("  ")
      .trimEnd();
  const total = result.bundles.reduce((sum, b) => sum + b.size, 0);
  const totalGzip = result.bundles.reduce((sum, b) => sum + b.gzipSize, 0);
  const shown = relative(cwd, result.outDir) || ".";
  const count = result.bundles.length;
  return [
    line(header),
    ...rows.map(line),
    "",
    `${count} component${count === 1 ? "" : "s"}, ${formatSize(total)} (gzip ${formatSize(totalGzip)}) → ${shown.startsWith("..") ? result.outDir : shown} in ${Math.round(result.durationMs)} ms`,
  ].join("\n");
}
