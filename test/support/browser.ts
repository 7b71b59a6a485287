/**
 * The browser of the browser tests: Debian's Chromium (installed by
 * `node scripts/browser.ts ensure`, which `npm run test:e2e` runs first) driven by
 * playwright-core, headless, on a closed network: every request that is not to
 * this machine (127.0.0.1, localhost, ::1) or a file/data/blob/about URL is
 * aborted and recorded, so a test can assert that a page loads nothing from
 * outside. Console errors and uncaught page errors are recorded too.
 *
 * One launch serves a whole test file:
 *
 *     const browser = chromiumPath() === undefined ? undefined : await launch()
 *     const page = await browser.open()
 *     await page.page.goto(pathToFileURL(file).href)
 *     expect(page.external).toEqual([])
 *     await browser.close()
 *
 * or `withPage(async (p) => ...)` for a single page. Without a browser, a file
 * registers one test whose body is {@link noBrowser}: skipped with the reason,
 * failed on CI (as the PostgreSQL tests do).
 */
import { type Browser as PlaywrightBrowser, chromium, type Page } from "playwright-core"
import { find } from "../../scripts/browser.ts"

/** The Chromium to use (`SVC_CHROMIUM`, else Debian's), or undefined when there is none. */
export const chromiumPath = (): string | undefined => find()

/** Why the browser tests skip, or undefined when there is a browser. */
export const skipReason = (): string | undefined => {
  if (chromiumPath() !== undefined) return undefined
  const configured = process.env.SVC_CHROMIUM
  return configured !== undefined && configured.length > 0
    ? `no Chromium: SVC_CHROMIUM=${configured} is not an executable`
    : "no Chromium: run `node scripts/browser.ts ensure` (as root with apt-get it installs Debian's chromium), or set SVC_CHROMIUM"
}

/**
 * Whether this run is CI: `CI` set to anything but empty, `0` or `false` (CI
 * services set `true`, `1` or their own name).
 */
export const isCi = (value: string | undefined = process.env.CI): boolean =>
  value !== undefined && !["", "0", "false"].includes(value.trim().toLowerCase())

/**
 * The body of the test that stands for a file's browser tests when there is no
 * browser: skips with the reason, but fails on CI, where `npm run test:e2e` installs it.
 */
export const noBrowser = (context: { readonly skip: (note?: string) => void }): void => {
  const reason = skipReason() ?? "no Chromium"
  if (!isCi()) return context.skip(reason)
  throw new Error(`${reason}; on CI (CI=${JSON.stringify(process.env.CI)}) the browser tests must run`)
}

/** Switches that keep Chromium from reaching out on its own (updates, sync, QUIC) or stalling without a GPU. */
export const CHROMIUM_ARGS: ReadonlyArray<string> = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-gpu",
  "--disable-quic"
]

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"])

/** Whether a page may load the URL: this machine, or a URL that needs no network. */
export const isLocal = (url: string): boolean => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  switch (parsed.protocol) {
    case "file:":
    case "data:":
    case "blob:":
    case "about:":
      return true
    case "http:":
    case "https:":
    case "ws:":
    case "wss:":
      return LOCAL_HOSTS.has(parsed.hostname)
    default:
      return false
  }
}

/** A page of a launched browser and what it did. */
export interface BrowserPage {
  readonly page: Page
  /** Requests to anywhere but this machine (all aborted), in order. */
  readonly external: ReadonlyArray<string>
  /** `console.error` messages and uncaught page errors, in order. */
  readonly errors: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

/** A launched browser. */
export interface Browser {
  /** A new page in its own context (no shared storage), with the network closed as above. */
  readonly open: (options?: { readonly viewport?: { readonly width: number; readonly height: number } }) => Promise<
    BrowserPage
  >
  readonly close: () => Promise<void>
}

/** Launches headless Chromium; throws when there is none (check {@link skipReason} first). */
export const launch = async (): Promise<Browser> => {
  const executablePath = chromiumPath()
  if (executablePath === undefined) throw new Error(skipReason())
  const browser: PlaywrightBrowser = await chromium.launch({
    executablePath,
    headless: true,
    args: [...CHROMIUM_ARGS]
  })
  const open: Browser["open"] = async (options) => {
    const context = await browser.newContext({
      viewport: options?.viewport ?? { width: 1280, height: 900 },
      serviceWorkers: "block"
    })
    const external: Array<string> = []
    const errors: Array<string> = []
    await context.route("**/*", (route) => {
      const url = route.request().url()
      if (isLocal(url)) return route.continue()
      external.push(url)
      return route.abort("blockedbyclient")
    })
    await context.routeWebSocket(() => true, (ws) => {
      if (isLocal(ws.url())) return ws.connectToServer()
      external.push(ws.url())
      return ws.close()
    })
    const page = await context.newPage()
    // requests the router does not see (a prefetch, a redirect target) still count
    page.on("request", (request) => {
      const url = request.url()
      if (!isLocal(url) && !external.includes(url)) external.push(url)
    })
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`console: ${message.text()}`)
    })
    page.on("pageerror", (error) => errors.push(`page: ${error.message}`))
    return { page, external, errors, close: () => context.close() }
  }
  return { open, close: () => browser.close() }
}

/** Launches the browser, opens one page, runs `f` with it and closes the browser. */
export const withPage = async <A>(f: (page: BrowserPage) => Promise<A>): Promise<A> => {
  const browser = await launch()
  try {
    return await f(await browser.open())
  } finally {
    await browser.close()
  }
}
