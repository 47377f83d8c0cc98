/**
 * The command line: `engine [command] [flags]`. Parsing only: what each command does is in main.ts
 * and commands.ts. Unknown commands and flags are usage errors (exit 2).
 */

export const COMMANDS = ['serve', 'status', 'stop', 'version', 'help'] as const;
export type Command = (typeof COMMANDS)[number];

export interface Parsed {
  command: Command;
  help: boolean;
  flags: { port?: string; gatewayPort?: string; bind?: string; home?: string; noSupervisor?: boolean; databaseUrl?: string; noWorker?: boolean; concurrency?: string };
}

/** Flags without a value (switches), and the commands that take them. */
const SWITCHES: Record<string, { key: 'noSupervisor' | 'noWorker'; commands: Command[] }> = {
  '--no-supervisor': { key: 'noSupervisor', commands: ['serve'] },
  '--no-worker': { key: 'noWorker', commands: ['serve'] },
};

/** Flags with a value, and the commands that take them. */
const FLAGS: Record<string, { key: 'port' | 'gatewayPort' | 'bind' | 'home' | 'databaseUrl' | 'concurrency'; commands: Command[] }> = {
  '--database-url': { key: 'databaseUrl', commands: ['serve'] },
  '--concurrency': { key: 'concurrency', commands: ['serve'] },
  '--port': { key: 'port', commands: ['serve'] },
  '--gateway-port': { key: 'gatewayPort', commands: ['serve'] },
  '--bind': { key: 'bind', commands: ['serve'] },
  '--home': { key: 'home', commands: ['serve', 'status', 'stop'] },
};

export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: Command,
  ) {
    super(message);
  }
}

export function parseArgs(argv: string[]): Parsed {
  const args = [...argv];
  let command: Command = 'serve';
  let help = false;
  const first = args[0];
  if (first === '--version' || first === '-v' || first === '-V') return { command: 'version', help: false, flags: {} };
  if (first === '--help' || first === '-h') return { command: 'help', help: false, flags: {} };
  if (first !== undefined && !first.startsWith('-')) {
    if (!(COMMANDS as readonly string[]).includes(first)) throw new UsageError(`unknown command "${first}"`);
    command = first as Command;
    args.shift();
  }
  const flags: Parsed['flags'] = {};
  while (args.length) {
    const arg = args.shift()!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const toggle = SWITCHES[arg];
    if (toggle && toggle.commands.includes(command)) {
      flags[toggle.key] = true;
      continue;
    }
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const flag = FLAGS[name];
    if (!flag || !flag.commands.includes(command)) {
      throw new UsageError(arg.startsWith('-') ? `unknown flag "${name}" for engine ${command}` : `unexpected argument "${arg}"`, command);
    }
    const value = inline ?? args.shift();
    if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`${name} needs a value`, command);
    flags[flag.key] = value;
  }
  return { command, help, flags };
}

export const USAGE = `usage: engine [command] [flags]

Commands:
  serve     start the engine under its supervisor (the default command)
  status    is an engine running for this home? pid, address, version, uptime
  stop      stop the running engine (supervisor and engine) cleanly
  version   print the version (also --version)
  help      print this help (also --help; engine <command> --help for one command)

Run engine <command> --help for the flags of a command.`;

export const COMMAND_USAGE: Record<Command, string> = {
  serve: `usage: engine serve [--port <n>] [--gateway-port <n>] [--bind <address>] [--home <absolute path>] [--no-supervisor]
                    [--database-url <postgres://...>] [--concurrency <n>] [--no-worker]

Starts the engine under a supervisor that restarts it after a crash or a move of home
(POST /api/home). The first line printed is the address really bound and the supervisor's pid:
stopping that pid (engine stop, kill <pid>, Ctrl-C) stops everything.

Flags (each beats its environment variable):
  --port <n>         port of the API; 0 picks a free one  (ENGINE_PORT, default 7777)
  --gateway-port <n> port of the completions gateway      (ENGINE_GATEWAY_PORT, default 7778)
  --bind <address>   IP address to listen on              (ENGINE_BIND, default 127.0.0.1)
  --home <path>      the engine home, an absolute path    (ENGINE_HOME, default ~/.engine)
  --no-supervisor    run the engine in this process, for a service manager that restarts it
                     itself (systemd, launchd, a container): one Node process instead of two, a
                     faster start; a crash or a move of home (exit 75) is the manager's to restart
  --database-url <url> pool mode: engines sharing this PostgreSQL run workflows as one pool
                     (ENGINE_DATABASE_URL; a secret, never printed; docs/pool.md)
  --concurrency <n>  in a pool: runs this engine executes at once (ENGINE_CONCURRENCY, default 4)
  --no-worker        in a pool: serve the API only, execute no runs (ENGINE_WORKER=0)

Environment only:
  ENGINE_SECRETS     secret store: auto (OS keychain when it answers, else file), keychain or file

A bad value is refused with one line and exit code 78.`,
  status: `usage: engine status [--home <absolute path>]

Says whether an engine runs for the home (ENGINE_HOME, default ~/.engine): pid, address, version,
uptime. Reads <home>/engine.pid, written by the supervisor. Exit 0 when running, 3 when not.`,
  stop: `usage: engine stop [--home <absolute path>]

Stops the engine of the home cleanly (its supervisor and the engine process) and waits until both
are gone. Exit 0 when stopped, 3 when nothing was running.`,
  version: 'usage: engine version (or engine --version)\n\nPrints the version.',
  help: USAGE,
};
