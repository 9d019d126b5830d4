/**
 * Loads a bridge's framework, an optional peer dependency of `@svc/server`. When it is not
 * installed, importing the bridge fails with one line that says what to install, instead of
 * a resolution error pointing into svc's own files.
 */
export async function importPeer<T>(
  specifier: string,
  bridge: string,
  install: string,
): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    if (isMissing(error, specifier)) {
      throw new Error(
        `${bridge} needs ${specifier}, which is not installed: run \`npm install ${install}\``,
        { cause: error },
      );
    }
    throw error;
  }
}

function isMissing(error: unknown, specifier: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" &&
    message.includes(`'${specifier}'`)
  );
}
