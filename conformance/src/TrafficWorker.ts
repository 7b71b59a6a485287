/**
 * The worker thread of `svc conformance proxy`: it receives the exchanges and
 * stream bytes the proxy forwarded, decodes them (brotli, gzip, deflate, zstd),
 * parses event streams as they arrive, and judges everything with the
 * {@link TrafficJudge}, off the forwarding path. Findings are posted back as
 * they are made; the results when the proxy ends.
 *
 * @since 0.1.0
 */
import { parentPort, workerData } from "node:worker_threads"
import * as Sink from "./TrafficSink.ts"

const port = parentPort
if (port !== null) {
  const sink = Sink.make({
    authority: (workerData as { authority?: string } | undefined)?.authority,
    onFinding: (check, finding) => port.postMessage({ t: "finding", check, finding: Sink.portable(finding) })
  })
  port.on("message", (message: Sink.Message) => {
    if (message.t === "finish") {
      port.postMessage({ t: "results", results: sink.results() })
      return
    }
    sink.handle(message)
  })
}
