// The store example on every framework in development mode; the specs are in storeSpecs.ts.
import { describeStoreExample } from "./storeSpecs.ts";

describeStoreExample("development");
