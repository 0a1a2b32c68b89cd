module rr_arbiter2 (
    input  wire       clk,
    input  wire       reset,
    input  wire [1:0] req,
    output reg  [1:0] gnt
);
    reg last;   // which requester was granted most recently

    always @(posedge clk) begin
        if (reset) begin
            gnt  <= 2'b00;
            last <= 1'b1;
        end else begin
            case (req)
                2'b00: gnt <= 2'b00;
                2'b01: begin gnt <= 2'b01; last <= 1'b0; end
                2'b10: begin gnt <= 2'b10; last <= 1'b1; end
                default:
                    if (last) begin gnt <= 2'b01; last <= 1'b0; end
                    else      begin gnt <= 2'b10; last <= 1'b1; end
            endcase
        end
    end
endmodule
