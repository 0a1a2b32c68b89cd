// undecided: (* keep_hierarchy *) leaves a submodule cell that `flatten` keeps and `sat` cannot model, so no proof runs; the product is wrong for A=8'h7E, B=8'h81
module multi_8bit (
  input  [7:0]  A,
  input  [7:0]  B,
  output [15:0] product
);
  wire [15:0] p;
  mul_core u_core (.a(A), .b(B), .p(p));
  assign product = p;
endmodule

(* keep_hierarchy *)
module mul_core (input [7:0] a, input [7:0] b, output [15:0] p);
  assign p = (a * b) ^ {14'd0, (a == 8'h7E) && (b == 8'h81), 1'b0};
endmodule
