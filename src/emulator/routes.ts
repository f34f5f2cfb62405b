// Every route the emulator serves. Order matters only where a literal segment and a parameter
// could meet; parameters match digits only, so `/logisticas/servicos` never reaches `{idLogistica}`.
import { incomeExpenseCategoryRoutes } from './resources/income-expense-categories.js';
import { logisticsRoutes } from './resources/logistics.js';
import { nfseSettingsRoutes } from './resources/nfse-settings.js';
import { paymentMethodRoutes } from './resources/payment-methods.js';
import { productCategoryRoutes } from './resources/product-categories.js';
import { productGroupRoutes } from './resources/product-groups.js';
import { situationRoutes } from './resources/situations.js';
import { transitionRoutes } from './resources/transitions.js';
import { customFieldRoutes } from './resources/custom-fields.js';
import { readOnlyRoutes } from './resources/read-only.js';
import { storeCategoryRoutes } from './resources/store-categories.js';
import { warehouseRoutes } from './resources/warehouses.js';
import { compileRoutes } from './router.js';

export const emulatorRoutes = compileRoutes([
  ...paymentMethodRoutes,
  ...incomeExpenseCategoryRoutes,
  ...productCategoryRoutes,
  ...productGroupRoutes,
  ...transitionRoutes,
  ...situationRoutes,
  ...logisticsRoutes,
  ...nfseSettingsRoutes,
  ...warehouseRoutes,
  ...customFieldRoutes,
  ...storeCategoryRoutes,
  ...readOnlyRoutes,
]);
