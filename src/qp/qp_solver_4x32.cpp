// solve_qp for 4 variables and up to 32 constraints (src/qp/interior_point.hpp).
#include "interior_point.hpp"

namespace diffcol::qp {
template void solve_qp<4, 32>(const QpProblem<4, 32>&, const QpOptions&, QpSolution<4, 32>&);
}  // namespace diffcol::qp
