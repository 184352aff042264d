/**
 * The one table of JSON-RPC error codes the suite knows (basic/index "Error
 * Codes" and JSON-RPC 2.0). Ground layer: every layer that names a code
 * names it from here.
 */

export const ERROR_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** HeaderMismatch: an HTTP header disagrees with the body. */
  HEADER_MISMATCH: -32020,
  /** MissingRequiredClientCapability. */
  MISSING_CAPABILITY: -32021,
  /** UnsupportedProtocolVersion. */
  UNSUPPORTED_VERSION: -32022,
  /** Retired (2025-11-25's resource-not-found); replaced by -32602. */
  RETIRED_RESOURCE_NOT_FOUND: -32002,
  /** 2025-11-25's URL elicitation required; not a code of the modern revision. */
  RETIRED_URL_ELICITATION_REQUIRED: -32042,
} as const;

/** The codes the modern revision defines in its reserved MCP sub-range. */
export const MCP_DEFINED_CODES: ReadonlySet<number> = new Set([
  ERROR_CODES.HEADER_MISMATCH,
  ERROR_CODES.MISSING_CAPABILITY,
  ERROR_CODES.UNSUPPORTED_VERSION,
]);

/** The reserved MCP sub-range, -32020..-32099 (inclusive). */
export const MCP_RESERVED_RANGE = { high: -32020, low: -32099 } as const;

export const inMcpReservedRange = (code: number): boolean => code <= MCP_RESERVED_RANGE.high && code >= MCP_RESERVED_RANGE.low;
