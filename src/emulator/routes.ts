// Every route the emulator serves. Order matters only where a literal segment and a parameter
// could meet; parameters match digits only, so `/logisticas/servicos` never reaches `{idLogistica}`.
import { companyRoutes } from './resources/company.js';
import { incomeExpenseCategoryRoutes } from './resources/income-expense-categories.js';
import { logisticsRoutes } from './resources/logistics.js';
import { nfseSettingsRoutes } from './resources/nfse-settings.js';
import { paymentMethodRoutes } from './resources/payment-methods.js';
import { productCategoryRoutes } from './resources/product-categories.js';
import { productGroupRoutes } from './resources/product-groups.js';
import { situationRoutes } from './resources/situations.js';
import { compileRoutes } from './router.js';

export const emulatorRoutes = compileRoutes([
  ...paymentMethodRoutes,
  ...incomeExpenseCategoryRoutes,
  ...productCategoryRoutes,
  ...productGroupRoutes,
  ...situationRoutes,
  ...logisticsRoutes,
  ...nfseSettingsRoutes,
  ...companyRoutes,
]);
