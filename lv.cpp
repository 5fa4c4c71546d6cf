constexpr auto x = sn::detail::graph_v<Model,Setup>.parameter_count;
int main(){return x;}
