import {
  DynamicModule,
  Global,
  Inject,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectConfig } from '../config/config.module';
import { HttpConfig } from '../config/env';
import { AppMetrics } from './app-metrics';
import { MetricsServer } from './metrics-server';

/**
 * The app's metrics, injectable everywhere; serves them on METRICS_HOST:METRICS_PORT while the
 * app runs.
 */
@Global()
@Module({})
export class MetricsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');

  constructor(
    @Inject(MetricsServer) private readonly server: MetricsServer,
    @InjectConfig('http') private readonly http: HttpConfig,
  ) {}

  static forRoot(metrics: AppMetrics): DynamicModule {
    return {
      module: MetricsModule,
      providers: [
        { provide: AppMetrics, useValue: metrics },
        { provide: MetricsServer, useValue: new MetricsServer(metrics) },
      ],
      exports: [AppMetrics, MetricsServer],
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.http.metricsPort !== null) {
      await this.server.listen(this.http.metricsPort, this.http.metricsHost);
      const address = this.server.address();
      this.logger.log('Metrics listening (GET /metrics)', {
        host: address?.address ?? this.http.metricsHost,
        port: address?.port ?? this.http.metricsPort,
      });
    }
  }

  onApplicationShutdown(): Promise<void> {
    return this.server.close();
  }
}

/**
 * AppMetrics for a process that counts but is never scraped (the admin CLI, whose commands
 * reuse services that count): nothing listens, whatever METRICS_PORT says.
 */
@Global()
@Module({})
export class UnservedMetricsModule {
  static forRoot(): DynamicModule {
    return {
      module: UnservedMetricsModule,
      providers: [
        { provide: AppMetrics, useValue: new AppMetrics({ collectProcessMetrics: false }) },
      ],
      exports: [AppMetrics],
    };
  }
}
