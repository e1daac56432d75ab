/**
 * The Household page's Access keys tab: make an API key for a person, an app or an assistant
 * (a name and one of the roles, each said in a line of plain words), shown once; the access
 * keys with Rotate and Revoke; and below, who changed what (`GET /api/v1/admin/audit`), newest
 * first, by the name of the key that did it.
 */

/** The roles a key may carry (the spec's three and the senior's web app), said for the family. */
const HP_ROLES: ReadonlyArray<{ role: string; label: string; says: string }> = [
  { role: "caregiver", label: "Caregiver", says: "Sees everything and acts on alerts; writes the knowledge pages. For family members and nurses." },
  { role: "admin", label: "Administrator", says: "Everything, keys and devices too. For the one or two people who run careflow." },
  { role: "mcp_readonly", label: "Assistant", says: "Reads, and starts rules by hand. For a voice assistant or an AI agent." },
  { role: "webapp", label: "The senior's tablet", says: "Shows messages and questions to the senior and takes the answers, nothing else." },
];

const HP_ACCESS_FIELDS = ["name", "role"] as const;

const hpRoleLabel = (role: string | null): string => HP_ROLES.find((r) => r.role === role)?.label ?? role ?? "";

function hpShowAccessMade(made: HpMadeKey): void {
  hp$("access-made-title").textContent = `${hpRoleLabel(made.role)} key "${made.name}"`;
  hp$("access-made-key").textContent = made.key;
  hp$("access-made").hidden = false;
  hp$("access-made").scrollIntoView({ block: "nearest" });
}

async function hpLoadAccessKeys(): Promise<void> {
  await hpFillKeyTable({
    id: "access-keys",
    keep: (k) => k.kind === "api",
    empty: "No access keys yet.",
    columns: 6,
    cells: (k) => [hpEl("td", {}, hpRoleLabel(k.role))],
    what: "Whoever uses it",
    reload: hpReloadAccess,
    shown: hpShowAccessMade,
  });
}

interface HpAuditEntry {
  id: number;
  at: string;
  actor: string;
  action: "create" | "update" | "delete" | "rotate" | "revoke";
  target_type: string;
  target_id: string | null;
  target_name: string | null;
}

const HP_DID: Record<HpAuditEntry["action"], string> = {
  create: "added",
  update: "changed",
  delete: "deleted",
  rotate: "rotated",
  revoke: "revoked",
};

/** `added the key "Porch camera"`, `deleted the room 3`. */
function hpWhat(e: HpAuditEntry): string {
  const thing = e.target_type.replace(/_/g, " ");
  const which = e.target_name ? `"${e.target_name}"` : (e.target_id ?? "");
  return `${HP_DID[e.action] ?? e.action} the ${thing} ${which}`.trim();
}

async function hpLoadAudit(): Promise<void> {
  const tbody = hp$("audit").querySelector("tbody")!;
  const entries = await hpApi<HpAuditEntry[]>("GET", "/admin/audit?limit=100");
  if (entries.length === 0) return hpEmptyRow(tbody, 3, "Nothing changed yet.");
  tbody.replaceChildren(
    ...entries.map((e) => hpEl("tr", {}, hpEl("td", { class: "nowrap" }, hpWhen(e.at)), hpEl("td", {}, e.actor), hpEl("td", {}, hpWhat(e)))),
  );
}

async function hpReloadAccess(): Promise<void> {
  await hpLoadAccessKeys();
  await hpLoadAudit();
}

function hpAccessInit(): void {
  hpTabLoaders.access = hpReloadAccess;
  const roles = hp$("access-roles");
  for (const [i, r] of HP_ROLES.entries()) {
    const id = `access-role-${r.role}`;
    roles.append(
      hpEl(
        "label",
        { class: "choice role" },
        hpEl("input", { type: "radio", name: "role", value: r.role, id, "aria-describedby": `${id}-says`, ...(i === 0 ? { checked: "" } : {}) }),
        hpEl("span", { class: "role-name" }, r.label),
        hpEl("span", { class: "muted role-says", id: `${id}-says` }, r.says),
      ),
    );
  }
  const form = hp$<HTMLFormElement>("access-form");
  hpClearOnEdit("access", HP_ACCESS_FIELDS);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const body = { name: String(data.get("name") ?? ""), kind: "api", ...(data.get("role") ? { role: String(data.get("role")) } : {}) };
    hpClearFieldErrors("access", HP_ACCESS_FIELDS);
    hpApi<HpMadeKey>("POST", "/admin/keys", body)
      .then(async (made) => {
        form.reset();
        hpShowAccessMade(made);
        hpNotice(`Made the key of "${made.name}".`, "ok");
        await hpReloadAccess();
      })
      .catch((err: Error) => hpShowFieldErrors("access", HP_ACCESS_FIELDS, err.message));
  });
  hp$("access-made-done").addEventListener("click", () => {
    hp$("access-made-key").textContent = "";
    hp$("access-made").hidden = true;
  });
}
