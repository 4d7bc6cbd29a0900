// solve_qp for 3 variables and up to 18 constraints (src/qp/interior_point.hpp).
#include "interior_point.hpp"

namespace diffcol::qp {
template void solve_qp<3, 18>(const QpProblem<3, 18>&, const QpOptions&, QpSolution<3, 18>&);
}  // namespace diffcol::qp
