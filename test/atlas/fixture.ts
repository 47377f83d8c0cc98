/** A fixture repository in three languages (TypeScript, Python, Go) for the atlas tests. */
export const FIXTURE: Record<string, string> = {
  'app/web/server.ts': "import { total } from '../core/cart.js';\nimport { log } from '../util/log.js';\nimport express from 'express';\nexport function serve() {\n  log('up');\n  return total([1, 2]);\n}\n",
  'app/web/routes.ts': "import { total } from '../core/cart.js';\nexport const routes = [total];\n",
  'app/core/cart.ts': "import { log } from '../util/log.js';\nexport function total(xs: number[]): number {\n  log('total');\n  return xs.reduce((a, b) => a + b, 0);\n}\n",
  'app/util/log.ts': 'export function log(msg: string): void {\n  console.log(msg);\n}\n',
  'app/py/pkg/__init__.py': '',
  'app/py/pkg/tax.py': 'from .rates import RATE\n\ndef compute_tax(amount):\n    return amount * RATE\n',
  'app/py/pkg/rates.py': 'RATE = 0.2\n_hidden = 1\n',
  'app/py/main.py': 'import json\nfrom pkg.tax import compute_tax\n\nif __name__ == "__main__":\n    print(compute_tax(10))\n',
  'app/go/go.mod': 'module example.com/shop\n\ngo 1.22\n',
  'app/go/main.go': 'package main\n\nimport (\n  "fmt"\n  "example.com/shop/store"\n)\n\nfunc main() {\n  fmt.Println(store.Count())\n}\n',
  'app/go/store/store.go': 'package store\n\nfunc Count() int { return helper() }\n\nfunc helper() int { return 3 }\n',
  'app/node_modules/express/index.js': 'module.exports = {};\n',
};
