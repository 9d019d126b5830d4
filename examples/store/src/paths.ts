import { fileURLToPath } from "node:url";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** `examples/store/components`: the store's svc components, registered with the prefix `store`. */
export const COMPONENTS_DIR = here("../components");
/** The seed data: `products.json` and the product images it names. */
export const FIXTURES_DIR = here("../fixtures");
/** Files served under `/static/` (the live-preview script, the stylesheet, the placeholder). */
export const PUBLIC_DIR = here("../public");
/** Where the database and uploaded images live unless `STORE_DATA_DIR` says otherwise. */
export const DEFAULT_DATA_DIR = here("../../data");
/** Where `npm run example -- <framework> --production` builds to unless `SVC_BUILD_DIR` is set. */
export const DEFAULT_BUILD_DIR = here("../dist/svc");
