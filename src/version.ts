/** The product's version, package.json's: what /health, the MCP server info and telemetry's scope report. */
import { version } from "../package.json";

export const ARBITER_VERSION: string = version;
