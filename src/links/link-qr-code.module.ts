import { Module } from '@nestjs/common';
import { LinkQrCodeController } from './link-qr-code.controller';
import { LinkQrCodeService } from './link-qr-code.service';
import { LinksModule } from './links.module';

/** GET /links/:id/qr: a link's QR code (docs/qr-codes.md). */
@Module({
  imports: [LinksModule],
  controllers: [LinkQrCodeController],
  providers: [LinkQrCodeService],
})
export class LinkQrCodeModule {}
