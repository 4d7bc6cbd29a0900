// solve_qp for 2 variables and up to 4 constraints (src/qp/interior_point.hpp).
#include "interior_point.hpp"

namespace diffcol::qp {
template void solve_qp<2, 4>(const QpProblem<2, 4>&, const QpOptions&, QpSolution<2, 4>&);
}  // namespace diffcol::qp
