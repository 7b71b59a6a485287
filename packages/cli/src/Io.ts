/**
 * The input/output contract of the svc command-line tool:
 *
 * - input is the path argument, or standard input when it is absent or `-`;
 * - standard output is exactly one JSON value followed by LF;
 * - exit 0 when the command succeeded, 1 when it found the input invalid (for
 *   example a feed that does not verify), 2 for bad input, with one line on
 *   standard error and never a stack trace.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Option, Stdio, Stream } from "effect"
import { BadInput, jsonLine, parseJsonInput } from "./internal/contract.ts"

/**
 * The two errors of the contract: {@link BadInput} (exit 2, one line on stderr)
 * and `Invalid` (exit 1, the JSON result already written). They are defined with
 * the other runtime-free parts of the contract, which the fast start of the
 * protocol commands shares.
 *
 * @category errors
 * @since 0.1.0
 */
export { BadInput, Invalid } from "./internal/contract.ts"

/**
 * Reads the input text: the file at `path`, or stdin when the path is absent or `-`.
 *
 * @category running
 * @since 0.1.0
 */
export const readInput = (
  path: Option.Option<string>
): Effect.Effect<string, BadInput, FileSystem.FileSystem | Stdio.Stdio> =>
  Effect.gen(function*() {
    if (Option.isSome(path) && path.value !== "-") {
      const fs = yield* FileSystem.FileSystem
      return yield* fs.readFileString(path.value).pipe(
        Effect.mapError((e) => new BadInput({ message: `cannot read ${path.value}: ${e.message.split("\n")[0]}` }))
      )
    }
    const stdio = yield* Stdio.Stdio
    return yield* stdio.stdin.pipe(
      Stream.decodeText(),
      Stream.mkString,
      Effect.mapError((e) => new BadInput({ message: `cannot read standard input: ${e.message.split("\n")[0]}` }))
    )
  })

/**
 * Reads the input bytes exactly as they are: the file at `path`, or stdin when
 * the path is absent or `-`.
 *
 * @category running
 * @since 0.1.0
 */
export const readInputBytes = (
  path: Option.Option<string>
): Effect.Effect<Uint8Array, BadInput, FileSystem.FileSystem | Stdio.Stdio> =>
  Effect.gen(function*() {
    if (Option.isSome(path) && path.value !== "-") {
      const fs = yield* FileSystem.FileSystem
      return yield* fs.readFile(path.value).pipe(
        Effect.mapError((e) => new BadInput({ message: `cannot read ${path.value}: ${e.message.split("\n")[0]}` }))
      )
    }
    const stdio = yield* Stdio.Stdio
    return yield* stdio.stdin.pipe(
      Stream.mkUint8Array,
      Effect.mapError((e) => new BadInput({ message: `cannot read standard input: ${e.message.split("\n")[0]}` }))
    )
  })

/**
 * Writes a human-readable line to standard error (never to standard output,
 * which carries the one JSON value).
 *
 * @category running
 * @since 0.1.0
 */
export const writeNote = (text: string) =>
  Effect.flatMap(
    Effect.service(Stdio.Stdio),
    (stdio) => Stream.make(text.endsWith("\n") ? text : `${text}\n`).pipe(Stream.run(stdio.stderr()))
  ).pipe(Effect.orDie)

/**
 * Reads and parses the JSON input.
 *
 * @category running
 * @since 0.1.0
 */
export const readJson = (path: Option.Option<string>) =>
  Effect.flatMap(
    readInput(path),
    (text) => Effect.try({ try: () => parseJsonInput(text), catch: (e) => e as BadInput })
  )

/**
 * Writes one JSON value and LF to stdout.
 *
 * @category running
 * @since 0.1.0
 */
export const writeJson = (value: unknown) => writeText(jsonLine(value))

/**
 * Writes text to stdout as is.
 *
 * @category running
 * @since 0.1.0
 */
export const writeText = (text: string) =>
  Effect.flatMap(Effect.service(Stdio.Stdio), (stdio) => Stream.make(text).pipe(Stream.run(stdio.stdout()))).pipe(
    Effect.orDie
  )
