// Two-bit saturating counter, as used in a branch predictor.
module branch_sat2 (
    input  wire       clk,
    input  wire       areset,
    input  wire       train_valid,
    input  wire       train_taken,
    output reg  [1:0] state,
    output wire       predict_taken
);
    always @(posedge clk or posedge areset) begin
        if (areset)
            state <= 2'b01;
        else if (train_valid) begin
            if (train_taken && state != 2'b11)
                state <= state + 2'b01;
            else if (!train_taken && state != 2'b00)
                state <= state - 2'b01;
        end
    end

    assign predict_taken = state[1];
endmodule
