/**
 * The console's pages under a project: /admin/projects/:project, a verdict, a contract version's changes,
 * and downloads of stored documents and verdict reports. Every one reads through the signed-in
 * administrator's organization (ConsoleContext.organizationId), so another organization's project or
 * verdict is simply not found. Names and ids are validated before any lookup.
 */
import { isProjectName } from "../../contracts/store/names";
import { isVerdictFormat, type VerdictFormat } from "../../engine";
import { notFound } from "./components";
import type { ConsoleContext } from "./context";
import { contractDocumentDownload, snapshotDocumentDownload, verdictReportDownload } from "./documents";
import { projectPage } from "./project.page";
import { contractChangesPage, verdictPage } from "./verdict.page";

export type ProjectPageHandler = (context: ConsoleContext) => Promise<Response>;

/** A project page and its address template (the audit record's target, e.g. `/admin/projects/:project`). */
export interface ProjectRoute {
  template: string;
  page: ProjectPageHandler;
}

const ID = "(\\d{1,15})";
const ROUTES: Array<{
  template: string;
  pattern: RegExp;
  handle: (context: ConsoleContext, project: string, id: number, format: string) => Promise<Response>;
}> = [
  {
    template: "/admin/projects/:project",
    pattern: /^\/admin\/projects\/([^/]+)$/,
    handle: (c, p) => projectPage(c, p),
  },
  {
    template: "/admin/projects/:project/verdicts/:id",
    pattern: new RegExp(`^/admin/projects/([^/]+)/verdicts/${ID}$`),
    handle: (c, p, id) => verdictPage(c, p, id),
  },
  {
    template: "/admin/projects/:project/verdicts/:id/report.:format",
    pattern: new RegExp(`^/admin/projects/([^/]+)/verdicts/${ID}/report\\.([a-z]+)$`),
    handle: (c, p, id, f) => verdictReportDownload(c, p, id, f as VerdictFormat),
  },
  {
    template: "/admin/projects/:project/contracts/:id/changes",
    pattern: new RegExp(`^/admin/projects/([^/]+)/contracts/${ID}/changes$`),
    handle: (c, p, id) => contractChangesPage(c, p, id),
  },
  {
    template: "/admin/projects/:project/contracts/:id/document",
    pattern: new RegExp(`^/admin/projects/([^/]+)/contracts/${ID}/document$`),
    handle: (c, p, id) => contractDocumentDownload(c, p, id),
  },
  {
    template: "/admin/projects/:project/snapshots/:id/document",
    pattern: new RegExp(`^/admin/projects/([^/]+)/snapshots/${ID}/document$`),
    handle: (c, p, id) => snapshotDocumentDownload(c, p, id),
  },
];

/** The page for a project path, or undefined when the path is not one of them. */
export function matchProjectRoute(path: string): ProjectRoute | undefined {
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    let project: string;
    try {
      project = decodeURIComponent(match[1]!);
    } catch {
      return { template: route.template, page: async () => notFound("That is not a project name.") };
    }
    const id = match[2] === undefined ? 0 : Number(match[2]);
    const format = match[3] ?? "";
    const page: ProjectPageHandler = async (context) => {
      if (!isProjectName(project))
        return notFound(
          `"${project.slice(0, 64)}" is not a project name: names are lowercase letters, digits, '.', '_' and '-'.`,
        );
      if (match[2] !== undefined && (!Number.isSafeInteger(id) || id < 1))
        return notFound("Ids are whole numbers from 1.");
      if (match[3] !== undefined && !isVerdictFormat(format))
        return notFound(`"${format.slice(0, 20)}" is not a report format: json, markdown, junit, sarif or github.`);
      return route.handle(context, project, id, format);
    };
    return { template: route.template, page };
  }
  return undefined;
}
