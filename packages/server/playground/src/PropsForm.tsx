import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { isPlainObject, sameJson } from "./route.ts";
import { type Field, typeLabel } from "./schema.ts";

export interface PropsFormProps {
  fields: readonly Field[];
  values: Record<string, unknown>;
  defaults: Record<string, unknown>;
  onChange: (values: Record<string, unknown>) => void;
}

/** One editor per prop of the schema, in schema order. */
export function PropsForm({ fields, values, defaults, onChange }: PropsFormProps): ReactNode {
  const set = (name: string, value: unknown) => {
    const next = { ...values };
    if (value === undefined) delete next[name];
    else next[name] = value;
    onChange(next);
  };
  return (
    <form className="pg-form" onSubmit={(event) => event.preventDefault()}>
      {fields.map((field) => (
        <FieldRow
          key={field.name}
          field={field}
          value={values[field.name]}
          fallback={defaults[field.name]}
          onChange={(value) => set(field.name, value)}
        />
      ))}
    </form>
  );
}

function FieldRow({
  field,
  value,
  fallback,
  onChange,
}: {
  field: Field;
  value: unknown;
  fallback: unknown;
  onChange: (value: unknown) => void;
}): ReactNode {
  const id = useId();
  const { schema } = field;
  const changed = !sameJson(value, fallback);
  const inline = field.editor.kind === "boolean";
  return (
    <div className={inline ? "pg-field pg-field-inline" : "pg-field"} data-prop={field.name}>
      <div className="pg-field-head">
        <label htmlFor={id} className="pg-field-name">
          {field.name}
          {field.required ? (
            <span className="pg-required" title="required">
              *
            </span>
          ) : null}
        </label>
        <span className="pg-field-type">{typeLabel(field)}</span>
        {changed ? (
          <button
            type="button"
            className="pg-icon-button"
            title={fallback === undefined ? "Unset" : `Back to the default (${show(fallback)})`}
            aria-label={`Reset ${field.name}`}
            onClick={() => onChange(fallback)}
          >
            ↺
          </button>
        ) : null}
        {inline ? <Editor id={id} field={field} value={value} onChange={onChange} /> : null}
      </div>
      {schema.description ? <p className="pg-field-help">{schema.description}</p> : null}
      {inline ? null : <Editor id={id} field={field} value={value} onChange={onChange} />}
    </div>
  );
}

function Editor({
  id,
  field,
  value,
  onChange,
}: {
  id: string;
  field: Field;
  value: unknown;
  onChange: (value: unknown) => void;
}): ReactNode {
  const { editor, schema, required } = field;
  switch (editor.kind) {
    case "boolean":
      return (
        <input
          id={id}
          type="checkbox"
          role="switch"
          className="pg-switch"
          checked={value === true}
          aria-checked={value === true}
          aria-required={required}
          onChange={(event) => onChange(event.target.checked)}
        />
      );
    case "string":
      return (
        <input
          id={id}
          type="text"
          className="pg-input"
          value={typeof value === "string" ? value : ""}
          placeholder={value === undefined ? "unset" : undefined}
          aria-required={required}
          maxLength={schema.maxLength}
          onChange={(event) => onChange(event.target.value)}
        />
      );
    case "number":
      return (
        <NumberInput
          id={id}
          field={field}
          value={value}
          integer={editor.integer}
          onChange={onChange}
        />
      );
    case "enum": {
      const index = editor.options.findIndex((option) => sameJson(option, value));
      return (
        <select
          id={id}
          className="pg-input"
          value={index === -1 ? "" : String(index)}
          aria-required={required}
          onChange={(event) =>
            onChange(
              event.target.value === "" ? undefined : editor.options[Number(event.target.value)],
            )
          }
        >
          {index === -1 ? (
            <option value="">{value === undefined ? "— unset —" : show(value)}</option>
          ) : null}
          {editor.options.map((option, i) => (
            <option key={show(option)} value={String(i)}>
              {typeof option === "string" ? option : show(option)}
            </option>
          ))}
        </select>
      );
    }
    case "stringList":
      return <StringList id={id} value={value} onChange={onChange} />;
    case "json":
      return <JsonEditor id={id} value={value} onChange={onChange} required={required} />;
  }
}

function NumberInput({
  id,
  field,
  value,
  integer,
  onChange,
}: {
  id: string;
  field: Field;
  value: unknown;
  integer: boolean;
  onChange: (value: unknown) => void;
}): ReactNode {
  const { schema } = field;
  // The text is kept while it is not a number yet ("-", "1e"), so typing is never fought.
  const [text, setText] = useState(typeof value === "number" ? String(value) : "");
  useEffect(() => {
    setText((current) =>
      typeof value === "number"
        ? Number(current) === value && current.trim() !== ""
          ? current
          : String(value)
        : value === undefined
          ? ""
          : current,
    );
  }, [value]);
  const number = Number(text);
  const problem =
    text.trim() === ""
      ? undefined
      : !Number.isFinite(number)
        ? "not a number"
        : integer && !Number.isInteger(number)
          ? "must be a whole number"
          : schema.minimum !== undefined && number < schema.minimum
            ? `at least ${schema.minimum}`
            : schema.maximum !== undefined && number > schema.maximum
              ? `at most ${schema.maximum}`
              : undefined;
  return (
    <>
      <input
        id={id}
        type="number"
        className="pg-input"
        value={text}
        min={schema.minimum}
        max={schema.maximum}
        step={integer ? 1 : "any"}
        placeholder="unset"
        aria-required={field.required}
        aria-invalid={problem !== undefined}
        onChange={(event) => {
          const next = event.target.value;
          setText(next);
          if (next.trim() === "") onChange(undefined);
          else if (Number.isFinite(Number(next))) onChange(Number(next));
        }}
      />
      {problem !== undefined ? <p className="pg-field-problem">{problem}</p> : null}
    </>
  );
}

function StringList({
  id,
  value,
  onChange,
}: {
  id: string;
  value: unknown;
  onChange: (value: unknown) => void;
}): ReactNode {
  const items = Array.isArray(value)
    ? value.map((item) => (typeof item === "string" ? item : show(item)))
    : [];
  const replace = (next: string[]) => onChange(next);
  return (
    <fieldset className="pg-list" id={id}>
      {items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: list items are plain values edited in place; a row is its position
        <div className="pg-list-row" key={index}>
          <input
            type="text"
            className="pg-input"
            value={item}
            aria-label={`item ${index + 1}`}
            onChange={(event) =>
              replace(items.map((it, i) => (i === index ? event.target.value : it)))
            }
            onKeyDown={(event) => {
              if (event.key === "Enter") {
                event.preventDefault();
                replace([...items.slice(0, index + 1), "", ...items.slice(index + 1)]);
              }
            }}
          />
          <button
            type="button"
            className="pg-icon-button"
            aria-label={`Remove item ${index + 1}`}
            title="Remove"
            onClick={() => replace(items.filter((_, i) => i !== index))}
          >
            ×
          </button>
        </div>
      ))}
      <button type="button" className="pg-link" onClick={() => replace([...items, ""])}>
        + Add item
      </button>
    </fieldset>
  );
}

/**
 * A JSON text editor: invalid JSON is kept as typed and its parse error shown, and the
 * component keeps its last valid value, rather than the input being dropped.
 */
export function JsonEditor({
  id,
  value,
  onChange,
  required = false,
  rows,
  objectOnly = false,
}: {
  id?: string;
  value: unknown;
  onChange: (value: unknown) => void;
  required?: boolean;
  rows?: number;
  /** Only a JSON object is accepted (the whole props). */
  objectOnly?: boolean;
}): ReactNode {
  const [text, setText] = useState(() => format(value));
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const seen = useRef({ value, text });
  seen.current.text = text;
  useEffect(() => {
    // Only a change of content from outside (reset, the other editor) replaces the text, and
    // not when the text already says the same: what is being typed is never thrown away.
    if (sameJson(seen.current.value, value)) return;
    seen.current.value = value;
    if (!sameJson(parse(seen.current.text), value)) {
      setText(format(value));
      setProblem(undefined);
    }
  }, [value]);
  return (
    <>
      <textarea
        id={id}
        className="pg-input pg-json"
        value={text}
        spellCheck={false}
        rows={rows ?? Math.min(10, Math.max(2, text.split("\n").length))}
        placeholder="unset"
        aria-required={required}
        aria-invalid={problem !== undefined}
        onChange={(event) => {
          const next = event.target.value;
          setText(next);
          if (next.trim() === "") {
            setProblem(objectOnly ? "Expected a JSON object" : undefined);
            if (!objectOnly) {
              seen.current.value = undefined;
              onChange(undefined);
            }
            return;
          }
          try {
            const parsed: unknown = JSON.parse(next);
            if (objectOnly && !isPlainObject(parsed)) throw new Error("Expected a JSON object");
            setProblem(undefined);
            seen.current.value = parsed;
            onChange(parsed);
          } catch (error) {
            setProblem((error as Error).message);
          }
        }}
      />
      {problem !== undefined ? (
        <p className="pg-field-problem" role="status">
          {problem} — the component keeps the last valid value.
        </p>
      ) : null}
    </>
  );
}

function format(value: unknown): string {
  return value === undefined ? "" : JSON.stringify(value, null, 2);
}

function parse(text: string): unknown {
  try {
    return text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    return Symbol("invalid");
  }
}

function show(value: unknown): string {
  return value === undefined ? "unset" : JSON.stringify(value);
}
