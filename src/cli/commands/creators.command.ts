import { Command, CommanderError } from 'commander';
import {
  collectIp,
  parseClickCount,
  parseEmail,
  parseEnvironment,
  parsePlan,
  parseRoutingMode,
} from '../cli-options';
import type { CliContext } from './cli-context';

interface CreateCreatorOptions {
  plan: ReturnType<typeof parsePlan>;
  includedClicks?: number;
  email?: string;
  name?: string;
  withKey?: boolean;
  env: 'live' | 'test';
  allowIp: string[];
  networkAccounts: boolean;
}

interface UpdateCreatorOptions {
  plan?: ReturnType<typeof parsePlan>;
  includedClicks?: number;
  planIncludedClicks?: boolean;
  routingMode?: ReturnType<typeof parseRoutingMode>;
}

export function registerCreatorsCommands(program: Command, { withAdmin }: CliContext): void {
  const creators = program.command('creators').description('Creator accounts');
  creators
    .command('create')
    .description('Create a creator (with demo accounts on all 12 networks unless told otherwise)')
    .requiredOption('--plan <plan>', 'free, creator, pro, publisher or enterprise', parsePlan)
    .option('--included-clicks <n>', "override the plan's monthly included clicks", parseClickCount)
    .option('--email <email>', 'login email (default: generated)', parseEmail)
    .option('--name <name>', 'display name')
    .option('--with-key', 'also issue an API key and print it once')
    .option('--env <env>', 'environment of that key: live or test', parseEnvironment, 'live')
    .option('--allow-ip <cidr>', 'IP allowlist entry of that key (repeatable)', collectIp, [])
    .option('--no-network-accounts', 'do not create demo network accounts')
    .action(async (options: CreateCreatorOptions) =>
      withAdmin((admin) =>
        admin.createCreator({
          planId: options.plan,
          email: options.email,
          displayName: options.name,
          includedClicks: options.includedClicks,
          withKey: options.withKey === true,
          environment: options.env,
          allowIps: options.allowIp,
          withNetworkAccounts: options.networkAccounts,
        }),
      ),
    );
  creators
    .command('update <creatorId>')
    .description("Change a creator's plan, included clicks or routing mode")
    .option('--plan <plan>', 'new plan', parsePlan)
    .option('--included-clicks <n>', 'new included clicks override', parseClickCount)
    .option('--plan-included-clicks', "drop the override and use the plan's included clicks")
    .option(
      '--routing-mode <mode>',
      'hinted (EPC hints) or learned (hints blended with realised EPC)',
      parseRoutingMode,
    )
    .action(async (creatorId: string, options: UpdateCreatorOptions) => {
      if (
        options.plan === undefined &&
        options.includedClicks === undefined &&
        options.planIncludedClicks !== true &&
        options.routingMode === undefined
      ) {
        throw new CommanderError(
          2,
          'linkpilot.nothingToUpdate',
          'Nothing to update: give --plan, --included-clicks, --plan-included-clicks or --routing-mode.',
        );
      }
      await withAdmin((admin) =>
        admin.updateCreator(creatorId, {
          planId: options.plan,
          includedClicksOverride:
            options.planIncludedClicks === true ? null : options.includedClicks,
          routingMode: options.routingMode,
        }),
      );
    });
}
