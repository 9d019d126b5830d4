import { type ComponentMetadata, type LiveStatus, useSvc } from "@svc/react";
import { type ReactNode, useEffect, useState } from "react";
import type { LiveState } from "./liveState.ts";

export interface WorkbenchHeaderProps {
  name: string;
  /** The metadata shown: the latest, or the last good one while the component does not build. */
  shown: ComponentMetadata | null | undefined;
  /** The bundle's content hash, when its metadata is loaded. */
  hash: string | undefined;
  live: LiveState;
}

/** The component's title, name, version and hash, and whether the page is live. */
export function WorkbenchHeader({ name, shown, hash, live }: WorkbenchHeaderProps): ReactNode {
  const { client } = useSvc();
  return (
    <header className="pg-head">
      <div className="pg-title-row">
        <h1 className="pg-title">{shown?.title || name}</h1>
        <code className="pg-name">{name}</code>
        {shown?.version ? <span className="pg-badge">v{shown.version}</span> : null}
        {hash ? (
          <span className="pg-badge pg-mono" title="Content hash of the bundle" data-hash="">
            #{hash}
          </span>
        ) : null}
        <Updated live={live} name={name} />
        {client.manifestUrl === undefined ? (
          <LiveBadge status={live.status} />
        ) : (
          <span
            className="pg-live pg-live-static"
            title={`Loaded through ${client.manifestUrl}: a build does not change`}
          >
            static build
          </span>
        )}
      </div>
      {shown?.description ? <p className="pg-desc">{shown.description}</p> : null}
    </header>
  );
}

function LiveBadge({ status }: { status: LiveStatus }): ReactNode {
  const label =
    status === "open"
      ? "live"
      : status === "connecting"
        ? "connecting…"
        : status === "off"
          ? "live reload off"
          : "reconnecting…";
  return (
    <span
      className={`pg-live pg-live-${status}`}
      title={
        status === "open"
          ? "Changes on disk show here at once"
          : status === "off"
            ? "This server does not serve live reload"
            : "Waiting for svc serve"
      }
    >
      {label}
    </span>
  );
}

/** A short "updated" note when live reload brought a new version of this component. */
function Updated({ live, name }: { live: LiveState; name: string }): ReactNode {
  const changed = live.changed.get(name);
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    if (changed === undefined) return;
    setVisible(true);
    const timer = setTimeout(() => setVisible(false), 2500);
    return () => clearTimeout(timer);
  }, [changed]);
  return visible ? (
    <span className="pg-updated" key={changed} role="status">
      updated
    </span>
  ) : null;
}
