// The store example on every framework in production mode; the specs are in storeSpecs.ts.
import { describeStoreExample } from "./storeSpecs.ts";

describeStoreExample("production");
