type HelpSection = { title?: string; body: string };

/**
 * cac's help, tidied: the default command (`svc` alone, which is `svc serve`) is not listed as
 * a command of its own, a negatable flag shows no `(default: true)`, and lines carry no
 * trailing spaces.
 */
export function tidyHelp(sections: HelpSection[]): HelpSection[] {
  // The help of `svc` alone is the default command's, whose usage line cac leaves empty.
  const top = sections.some((s) => s.title === "Usage" && s.body.trim() === "$ svc");
  return sections.map((section) => {
    let { title, body } = section;
    if (title === "Usage")
      body = top ? "  $ svc [command] [options]" : `${body.trimEnd()} [options]`;
    if (title === "Commands") body = withoutDefault(body, (line) => /^ {2}\s/.test(line));
    if (title?.startsWith("For more info"))
      body = withoutDefault(body, (line) => line.trim() === "$ svc --help");
    if (title === "Options") {
      if (top) title = "Options (of svc serve)";
      body = body.replace(/^( {2}--no-.*?) \(default: true\)$/gm, "$1");
    }
    if (title === "Examples") body = body.replace(/^(?! )/gm, "  $ ");
    return { title, body: body.replace(/[ \t]+$/gm, "") };
  });
}

/** `body` without the lines cac writes for the default command. */
function withoutDefault(body: string, isDefault: (line: string) => boolean): string {
  return body
    .split("\n")
    .filter((line) => !isDefault(line))
    .join("\n");
}
