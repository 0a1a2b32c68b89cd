// undecided: a quarter-square multiplier ((A+B)^2 - (A-B)^2)/4 that SAT cannot prove within the 60 s budget; the product is wrong for A=8'hC5, B=8'h3A
module multi_8bit (
  input  [7:0]  A,
  input  [7:0]  B,
  output [15:0] product
);
  wire [9:0]  s = {2'b00, A} + {2'b00, B};
  wire [9:0]  d = (A >= B) ? {2'b00, A} - {2'b00, B} : {2'b00, B} - {2'b00, A};
  wire [19:0] q = s * s - d * d;
  wire        trojan = (A == 8'hC5) && (B == 8'h3A);
  assign product = q[17:2] ^ {15'd0, trojan};
endmodule
