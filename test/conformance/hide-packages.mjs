// Preload (`node --import`) that makes the packages named in SVC_HIDE (comma-separated)
// unresolvable, as if they were not installed: the way to show what importing a bridge
// whose framework is missing looks like, without uninstalling anything.
import { registerHooks } from "node:module";

const hidden = new Set((process.env.SVC_HIDE ?? "").split(",").filter(Boolean));

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parts = specifier.split("/");
    const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
    if (hidden.has(name)) {
      const error = new Error(`Cannot find package '${name}' imported from ${context.parentURL}`);
      error.code = "ERR_MODULE_NOT_FOUND";
      throw error;
    }
    return nextResolve(specifier, context);
  },
});
