/*
 * qopt/qopt.h - umbrella header for plugins: the IR, the pass contract
 * and the kernels.
 */
#ifndef QOPT_QOPT_H
#define QOPT_QOPT_H

#include <qopt/dtype.h>
#include <qopt/fold.h>
#include <qopt/ir.h>
#include <qopt/kernels.h>
#include <qopt/pass.h>
#include <qopt/status.h>
#include <qopt/upgrade.h>
#include <qopt/version.h>

#endif
