// A NestJS app as `nest new` makes it: CommonJS, compiled by tsc with `module: commonjs`
// (so `@svc/server/nest` is found through typesVersions and loaded with require()).
import "reflect-metadata";
import { Module } from "@nestjs/common";
import { NestFactory, RouterModule } from "@nestjs/core";
import { ComponentRegistry } from "@svc/server";
import { SvcModule } from "@svc/server/nest";

@Module({
  imports: [
    SvcModule.forRoot({ registry: new ComponentRegistry("./components") }),
    RouterModule.register([{ path: "api", module: SvcModule }]),
  ],
})
class AppModule {}

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule, { logger: ["error", "warn"] });
  await app.listen(0, "127.0.0.1");
  console.log(`LISTENING ${await app.getUrl()}`);
}

void bootstrap();
