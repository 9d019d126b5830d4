// @ts-check
/**
 * Live preview for the admin product form. The form names its preview panel in
 * `data-live-preview` (a selector); the panel names the validation endpoint in
 * `data-preview-url` and holds an svc widget (`renderWidget`) and an element for errors. On every input
 * or change, debounced by 300 ms, the form is posted (multipart, with its file) to the
 * validation endpoint; the props it answers are handed to `svc.update`, its errors are shown
 * as text. Served as a file, so a page's CSP needs no 'unsafe-inline' for it.
 */
(() => {
  const DEBOUNCE_MS = 300;

  /** @param {HTMLFormElement} form */
  function attach(form) {
    const panel = document.querySelector(form.dataset.livePreview ?? "");
    const widget = panel?.querySelector("[data-svc-component]");
    const box = panel?.querySelector("[data-preview-errors]");
    if (!(widget instanceof HTMLElement) || !(box instanceof HTMLElement)) return;
    const container = widget;
    const errorBox = box;
    const url = panel instanceof HTMLElement ? (panel.dataset.previewUrl ?? "") : "";

    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    /** @type {AbortController | undefined} */
    let inFlight;
    let latest = 0;

    /** @param {string[]} lines */
    function showErrors(lines) {
      // Text nodes only: nothing from the response is ever parsed as HTML.
      errorBox.replaceChildren(
        ...lines.map((line) => {
          const item = document.createElement("li");
          item.textContent = line;
          return item;
        }),
      );
      errorBox.hidden = lines.length === 0;
    }

    async function send() {
      inFlight?.abort();
      const controller = new AbortController();
      inFlight = controller;
      const request = ++latest;
      try {
        const response = await fetch(url, {
          method: "POST",
          body: new FormData(form),
          headers: { accept: "application/json" },
          signal: controller.signal,
        });
        const result = await response.json();
        // An older answer arriving after a newer request was sent is stale.
        if (request !== latest) return;
        if (result?.success === true && typeof result.props === "object") {
          showErrors([]);
          window.svc?.update(container, result.props);
        } else {
          showErrors(messagesOf(result?.errors, response.status));
        }
      } catch (error) {
        if (controller.signal.aborted || request !== latest) return;
        showErrors([`The preview is not available right now (${String(error)}).`]);
      }
    }

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(send, DEBOUNCE_MS);
    }
    form.addEventListener("input", schedule);
    form.addEventListener("change", schedule);
  }

  /**
   * `{ name: ["This field is required."] }` → `["Name: This field is required."]`.
   * @param {unknown} errors
   * @param {number} status
   * @returns {string[]}
   */
  function messagesOf(errors, status) {
    if (typeof errors !== "object" || errors === null) {
      return [`The preview could not be updated (HTTP ${status}).`];
    }
    return Object.entries(errors).flatMap(([field, messages]) =>
      (Array.isArray(messages) ? messages : [messages]).map(
        (message) => `${field.charAt(0).toUpperCase()}${field.slice(1)}: ${String(message)}`,
      ),
    );
  }

  for (const form of document.querySelectorAll("form[data-live-preview]")) {
    if (form instanceof HTMLFormElement) attach(form);
  }
})();
