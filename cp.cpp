constexpr auto& f1 = sn::detail::backward_v<Model,Setup>;
constexpr auto x = [] { sn::detail::Offsets<10001> o{}; return sn::detail::place_by_step(sn::detail::backward_v<Model,Setup>, o); }();
int main(){return x;}
