/**
 * A `curl` command line that reproduces a request exactly (method, URL,
 * headers, body bytes), for the failure report.
 *
 * @since 0.1.0
 */

/**
 * The request a command reproduces.
 *
 * @category models
 * @since 0.1.0
 */
export interface CurlRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
  /** An event stream: keep reading (`-N`) and stop after `maxTimeSeconds`. */
  readonly stream?: boolean | undefined
  readonly maxTimeSeconds?: number | undefined
}

/**
 * Quotes a string for a POSIX shell.
 *
 * @category encoding
 * @since 0.1.0
 */
export const shellQuote = (s: string): string =>
  /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`

/** Bodies longer than this with a long run of trailing spaces are generated with printf. */
const PAD_RUN = 256

/**
 * The command. Headers set by curl itself (host, content-length) are left out,
 * and a body sent without a content type keeps none (`-H 'Content-Type:'`);
 * a body ending in a long run of spaces (the 32 KiB limit checks) is generated
 * with `printf` and piped, so the line stays short and the byte count exact.
 *
 * @category encoding
 * @since 0.1.0
 */
export const command = (request: CurlRequest): string => {
  const parts = ["curl", "-sS", "-i"]
  if (request.stream === true) parts.push("-N")
  if (request.maxTimeSeconds !== undefined) parts.push("--max-time", String(request.maxTimeSeconds))
  if (request.method !== "GET" || request.body !== undefined) parts.push("-X", request.method)
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase()
    if (lower === "host" || lower === "content-length") continue
    parts.push("-H", shellQuote(`${name}: ${value}`))
  }
  // a body sent without a content type: curl would add its form type, `Content-Type:` removes it
  if (request.body !== undefined && !Object.keys(request.headers).some((h) => h.toLowerCase() === "content-type")) {
    parts.push("-H", shellQuote("Content-Type:"))
  }
  const url = shellQuote(request.url)
  if (request.body === undefined) return [...parts, url].join(" ")
  const body = request.body
  const trimmed = body.replace(/ +$/, "")
  const pad = body.length - trimmed.length
  if (pad >= PAD_RUN) {
    return `{ printf '%s' ${shellQuote(trimmed)}; printf '%${pad}s' ''; } | ${
      [...parts, "--data-binary", "@-", url].join(" ")
    }`
  }
  return [...parts, "--data-binary", shellQuote(body), url].join(" ")
}
