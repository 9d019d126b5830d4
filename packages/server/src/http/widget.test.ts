import { describe, expect, it } from "vitest";
import { InvalidComponentNameError } from "../errors.ts";
import { renderWidget } from "./widget.ts";

/** Reads attributes back the way an HTML parser would for double-quoted values. */
function attributes(html: string): Record<string, string> {
  const open = html.slice(0, html.indexOf(">"));
  const result: Record<string, string> = {};
  for (const match of open.matchAll(/ ([\w-]+)="([^"]*)"/g)) {
    result[match[1] as string] = (match[2] as string)
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&quot;", '"')
      .replaceAll("&#39;", "'")
      .replaceAll("&amp;", "&");
  }
  return result;
}

describe("renderWidget", () => {
  it("renders the container with name, JSON props, API base and a loading placeholder", () => {
    const html = renderWidget("store:product", { name: "Lamp", price: 12.5 });
    expect(attributes(html)).toEqual({
      "data-svc-component": "store:product",
      "data-svc-props": '{"name":"Lamp","price":12.5}',
      "data-svc-api": "/api",
    });
    expect(html).toMatch(
      /^<div [^>]*><div class="svc-loading" aria-busy="true">Loading…<\/div><\/div>$/,
    );
  });

  it("adds hash and live when given", () => {
    const html = renderWidget(
      "store:product_preview",
      {},
      {
        apiBase: "/svc-api",
        hash: "0123456789ab",
        live: true,
      },
    );
    expect(attributes(html)).toEqual({
      "data-svc-component": "store:product_preview",
      "data-svc-props": "{}",
      "data-svc-api": "/svc-api",
      "data-svc-hash": "0123456789ab",
      "data-svc-live": "",
    });
  });

  it("escapes every attribute, so hostile props and options stay inert", () => {
    const hostile = `</script><script>alert(1)</script>"' onmouseover="alert(2)" <b>&amp;`;
    const html = renderWidget("greeting", { name: hostile }, { apiBase: hostile, hash: hostile });
    expect(html).not.toMatch(/<script|<\/script|<b>/i);
    // Only the attributes we wrote exist: nothing broke out of its quotes.
    const parsed = attributes(html);
    expect(Object.keys(parsed).sort()).toEqual(
      ["data-svc-api", "data-svc-component", "data-svc-hash", "data-svc-props"].sort(),
    );
    expect(JSON.parse(parsed["data-svc-props"] as string)).toEqual({ name: hostile });
    expect(parsed["data-svc-api"]).toBe(hostile);
    expect(html.slice(0, html.indexOf(">")).match(/"/g)?.length).toBe(2 * 4);
  });

  it("refuses malformed names and non-object props", () => {
    expect(() => renderWidget('x" onload="alert(1)')).toThrow(InvalidComponentNameError);
    expect(() => renderWidget("../x")).toThrow(InvalidComponentNameError);
    expect(() => renderWidget("x", [] as never)).toThrow(TypeError);
  });
});
